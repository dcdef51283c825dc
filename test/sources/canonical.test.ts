import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { collect, fixture, readUntilError, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('canonical reader', () => {
  it('reads the JSON array, NDJSON and {"users"} + BOM + CRLF fixtures to the same records', async () => {
    const array = await collect([fixture('canonical/users.json')]);
    const nd = await collect([fixture('canonical/users.ndjson')]);
    const wrapped = await collect([fixture('canonical/users-bom-crlf.json')]);
    const expected = JSON.parse(await readFile(fixture('canonical/users.json'), 'utf8'));
    for (const read of [array, nd, wrapped]) {
      expect(read.all).toEqual([]);
      expect(read.records.map((r) => r.record)).toEqual(expected);
    }
    expect(array.records.map((r) => r.origin.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(nd.records.map((r) => r.origin.line)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('names every wrong type by field and keeps reading', async () => {
    const { records, problems, all } = await collect([fixture('broken/wrong-types.json')]);
    expect(records.map((r) => r.record.id)).toEqual(['w-1', 'w-4', 'w-5', 'w-6']);
    const messages = all.map((p) => `${p.origin.index} ${p.field ?? '-'}: ${p.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        '0 emailVerified: emailVerified must be true or false, not a string',
        '0 totp[0].period: totp[0].period must be a number, not a string',
        '1 id: id must be a string, not a number',
        '2 -: the record is a string, not a JSON object; fix or remove it',
        '3 thirdParty: thirdParty must be an array, not an object',
        '4 password: password must be an object, not a string',
        '5 emial: unknown field emial is ignored; check its spelling',
        '5 password.algorithm: password.algorithm must be one of bcrypt, argon2, external_scrypt, not "md5"',
      ]),
    );
    expect(problems.map((p) => p.origin.index)).toEqual([1, 2]);
    // The wrong field is dropped, the rest of the record kept.
    expect(records[0]!.record.emailVerified).toBeUndefined();
    expect(records[0]!.record.totp).toEqual([{ secret: expect.any(String) }]);
  });

  it('turns bad NDJSON lines into problems naming the line and reads the others', async () => {
    const { records, problems } = await collect([fixture('broken/bad-lines.ndjson')]);
    expect(records.map((r) => [r.record.id, r.origin.line])).toEqual([
      ['l-1', 1],
      ['l-5', 5],
    ]);
    expect(problems.map((p) => [p.origin.line, p.rule])).toEqual([
      [2, 'source.json'],
      [3, 'source.json'],
      [4, 'source.type'],
    ]);
    expect(problems[0]!.message).toMatch(/^line 2 is not valid JSON/);
  });

  it('reads the records before a truncation, then fails with the byte offset', async () => {
    const { error, records } = await readUntilError([fixture('broken/truncated.json')]);
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThan(6);
    expect(error.message).toMatch(/truncated\.json: the JSON ends early at byte \d+ \(line \d+\) inside element \d+ .*export it again/);
  });

  it.each([
    ['empty.json', /empty\.json is empty \(0 bytes\)/],
    ['garbage.bin', /garbage\.bin is not a text export \(binary data at byte \d+\)/],
  ])('refuses %s with a one-line message', async (name, pattern) => {
    const { error } = await readUntilError([fixture(`broken/${name}`)], { format: 'canonical' });
    expect(error.message).toMatch(pattern);
    expect(error.exitCode).toBe(2);
  });

  it('refuses a missing file and a directory', async () => {
    expect((await readUntilError([fixture('nope.json')])).error.message).toMatch(/nope\.json: no such file/);
    expect((await readUntilError([tmp.dir])).error.message).toMatch(/is a directory/);
  });

  it('accepts CRLF NDJSON with a BOM and blank lines', async () => {
    const path = await tmp.file(
      'crlf.ndjson',
      '\uFEFF{"id":"a","phoneNumber":"+14155550100"}\r\n\r\n{"id":"b","phoneNumber":"+14155550101"}\r\n',
    );
    const { records, all } = await collect([path]);
    expect(all).toEqual([]);
    expect(records.map((r) => [r.record.id, r.origin.line])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
  });

  it('refuses text that is not JSON when forced to canonical', async () => {
    const path = await tmp.file('x.txt', 'id,secret\nu1,ABC\n');
    expect((await readUntilError([path], { format: 'canonical' })).error.message).toMatch(
      /x\.txt is not JSON or NDJSON \(its first character is "i", not "\[" or "\{"\); check the file or pass the right --format/,
    );
  });

  it('needs an id on every record', async () => {
    const path = await tmp.file('noid.json', JSON.stringify([{ email: 'a@example.com' }, { id: '', email: 'b@example.com' }, { id: 'c' }]));
    const { records, problems } = await collect([path]);
    expect(records.map((r) => r.record.id)).toEqual(['c']);
    expect(problems.map((p) => [p.origin.index, p.field, p.rule])).toEqual([
      [0, 'id', 'source.required'],
      [1, 'id', 'source.required'],
    ]);
  });

  it('reads nested parts with their field paths', async () => {
    const path = await tmp.file(
      'nested.json',
      JSON.stringify({
        users: [
          {
            id: 'n',
            thirdParty: [{ providerId: 'google' }, 'x'],
            totp: [{ encoding: 'base58', secret: 'AAAA' }],
            otpFactors: { email: 5 },
          },
        ],
      }),
    );
    const { records } = await collect([path]);
    expect(records[0]!.problems.map((p) => p.field)).toEqual([
      'thirdParty[0].userId',
      'thirdParty[1]',
      'totp[0].encoding',
      'otpFactors.email',
    ]);
    expect(records[0]!.record.totp).toEqual([{ secret: 'AAAA' }]);
    expect(records[0]!.record.thirdParty).toEqual([]);
  });
});

describe('canonical layouts', () => {
  it('reads a one-line object whose users array is not the first key', async () => {
    const t = await tempDir();
    try {
      const path = await t.file('v.json', JSON.stringify({ version: 1, users: [{ id: 'a' }, { id: 'b' }] }));
      const { records, all } = await collect([path]);
      expect(all).toEqual([]);
      expect(records.map((r) => r.record.id)).toEqual(['a', 'b']);
    } finally {
      await t.cleanup();
    }
  });
});
