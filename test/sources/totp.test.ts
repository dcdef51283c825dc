import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parseCsvLine } from '../../src/sources/csv.js';
import { parseHashConfig, type HashConfig } from '../../src/sources/index.js';
import { parseOtpauthLine } from '../../src/sources/totp.js';
import { byId, collect, fixture, readUntilError, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let hashConfig: HashConfig;
beforeAll(async () => {
  tmp = await tempDir();
  hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('TOTP lists', () => {
  it('joins a CSV (by email, any case, CRLF, quoted fields) and an otpauth list (by id) to Firebase users', async () => {
    const { records, all } = await collect(
      [fixture('totp/firebase-secrets.csv'), fixture('firebase/export.json'), fixture('totp/firebase-otpauth.txt')],
      { hashConfig },
    );
    expect(all).toEqual([]);
    const users = byId(records);
    expect(users.get('fb-ann')!.record.totp).toEqual([
      { secret: expect.stringMatching(/^[A-Z2-7]{32}$/), encoding: 'base32', period: 30, skew: 1, deviceName: 'Authenticator' },
    ]);
    expect(users.get('fb-ben')!.record.totp).toEqual([{ secret: expect.stringMatching(/^[0-9a-f]{40}$/), encoding: 'hex' }]);
    expect(users.get('fb-eli')!.record.totp).toEqual([
      { secret: expect.any(String), encoding: 'base64', period: 30, skew: 1, deviceName: 'Tablet, old' },
    ]);
    expect(users.get('fb-fox')!.record.totp).toEqual([
      { secret: expect.stringMatching(/^[A-Z2-7]{32}$/), period: 30, digits: 6, algorithm: 'SHA1', deviceName: 'Example' },
    ]);
    expect(users.get('fb-col')!.record.totp).toBeUndefined();
  });

  it('reports bad rows and rows that match no user, and keeps the rest', async () => {
    const { records, problems, all } = await collect([fixture('firebase/export.json'), fixture('broken/totp-bad.csv')], { hashConfig });
    expect(problems.map((p) => [p.origin.line, p.rule])).toEqual([
      [3, 'totp.row'],
      [6, 'totp.unmatched'],
    ]);
    expect(problems[0]!.message).toMatch(/2 columns, the header has 6/);
    expect(problems[1]!.message).toMatch(/no user in the other files has email "nobody@example.com"/);
    const users = byId(records);
    expect(users.get('fb-ann')!.record.totp?.[0]?.deviceName).toBe('Phone, old');
    const eli = users.get('fb-eli')!;
    expect(eli.record.totp).toHaveLength(2);
    expect(eli.problems.map((p) => [p.field, p.origin.line, p.sourceId])).toEqual([
      ['totp[0].encoding', 4, 'fb-eli'],
      ['totp[1].period', 5, 'fb-eli'],
    ]);
    expect(all.every((p) => p.severity === 'error')).toBe(true);
  });

  it('keeps SHA256 / 8-digit facts for validation and reports what cannot be a TOTP row', async () => {
    const { records, problems } = await collect([fixture('firebase/export.json'), fixture('broken/otpauth-bad.txt')], { hashConfig });
    expect(byId(records).get('fb-ann')!.record.totp).toEqual([
      { secret: expect.any(String), algorithm: 'SHA256', digits: 8, deviceName: 'Example' },
    ]);
    expect(problems.map((p) => [p.origin.line, p.message])).toEqual([
      [2, 'only otpauth://totp URIs can be migrated, not hotp'],
      [3, 'the line is not an otpauth:// URI'],
      [4, 'the URI has no account name (user id or email) after the issuer'],
    ]);
  });

  it('refuses a CSV without a header', async () => {
    expect((await readUntilError([fixture('broken/totp-no-header.csv')])).error.message).toMatch(
      /totp-no-header\.csv:1: the header must name a "secret" column and a "userId" or "email" column \(the first line has 2 fields and does not\)/,
    );
  });

  it('joins by userId to canonical records and appends to their devices', async () => {
    const users = await tmp.file(
      'u.json',
      JSON.stringify([{ id: 'u1', phoneNumber: '+14155550100', totp: [{ secret: 'AAAAAAAAAAAAAAAA', deviceName: 'old' }] }]),
    );
    const csv = await tmp.file(
      't.csv',
      '\uFEFFuser_id,Secret,Device Name,period,skew,digits,algorithm\r\nu1,"BBBBBBBBBBBBBBBB",new,60,0,6,sha1\r\n',
    );
    const { records, all } = await collect([users, csv]);
    expect(all).toEqual([]);
    expect(records[0]!.record.totp).toEqual([
      { secret: 'AAAAAAAAAAAAAAAA', deviceName: 'old' },
      { secret: 'BBBBBBBBBBBBBBBB', deviceName: 'new', period: 60, skew: 0, digits: 6, algorithm: 'SHA1' },
    ]);
  });

  it('reports every row as unmatched when no user file is given', async () => {
    const { problems } = await collect([fixture('totp/firebase-secrets.csv')]);
    expect(problems.map((p) => p.rule)).toEqual(['totp.unmatched', 'totp.unmatched', 'totp.unmatched']);
  });
});

describe('CSV and otpauth lines', () => {
  it.each([
    ['a,b,c', ['a', 'b', 'c']],
    [' a , b ,', ['a', 'b', '']],
    ['"a, b","say ""hi""",c', ['a, b', 'say "hi"', 'c']],
    ['"x" ,y', ['x', 'y']],
    ['', ['']],
  ])('parses %j', (line, fields) => {
    expect(parseCsvLine(line)).toEqual({ ok: true, fields });
  });

  it.each(['"open', '"a"b,c'])('refuses %j', (line) => {
    expect(parseCsvLine(line).ok).toBe(false);
  });

  it('reads the label, issuer and parameters of a key URI', () => {
    const item = parseOtpauthLine('otpauth://totp/ACME%20Co:jo%40example.com?secret=JBSWY3DPEHPK3PXP&digits=8&period=60&algorithm=SHA512', {
      file: 'f',
      line: 1,
    });
    expect(item).toEqual({
      ok: true,
      row: {
        email: 'jo@example.com',
        totp: { secret: 'JBSWY3DPEHPK3PXP', period: 60, digits: 8, algorithm: 'SHA512', deviceName: 'ACME Co' },
        origin: { file: 'f', line: 1 },
        problems: [],
      },
    });
    const noSecret = parseOtpauthLine('otpauth://totp/u1?issuer=X', { file: 'f', line: 2 });
    expect(noSecret).toMatchObject({ ok: false, problem: { sourceId: 'u1', field: 'secret' } });
  });
});
