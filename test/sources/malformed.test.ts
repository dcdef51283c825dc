// Every reader against the same kinds of damage: truncation, binary garbage, an empty file, a BOM, CRLF
// line ends and fields of the wrong type. Unreadable files are one-line UserErrors naming file and position.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parseHashConfig, type HashConfig, type SourceFormat } from '../../src/sources/index.js';
import { collect, fixture, readUntilError, tempDir } from '../support/sources.js';

interface Sample {
  format: SourceFormat;
  file: string;
  /** JSON documents fail on truncation; line formats report the cut line. */
  layout: 'json' | 'lines';
  /** A file whose one record has a field of the wrong type, and the field named. */
  wrongType: { name: string; text: string; field: string };
  /** Users the TOTP rows join to. */
  with?: string[];
}

const SAMPLES: Sample[] = [
  {
    format: 'canonical',
    file: 'canonical/users.json',
    layout: 'json',
    wrongType: { name: 'wt.json', text: '[{"id":"x","emailVerified":"yes"}]', field: 'emailVerified' },
  },
  {
    format: 'canonical',
    file: 'canonical/users.ndjson',
    layout: 'lines',
    wrongType: { name: 'wt.ndjson', text: '{"id":"x","totp":[{"secret":"AAAA","period":"30"}]}\n', field: 'totp[0].period' },
  },
  {
    format: 'firebase',
    file: 'firebase/export.json',
    layout: 'json',
    wrongType: { name: 'wt.json', text: '{"users":[{"localId":"x","providerUserInfo":{}}]}', field: 'providerUserInfo' },
  },
  {
    format: 'auth0',
    file: 'auth0/passwords.ndjson',
    layout: 'lines',
    wrongType: { name: 'wt.ndjson', text: '{"_id":{"$oid":"x"},"email":5}\n', field: 'email' },
  },
  {
    format: 'auth0',
    file: 'auth0/passwords-array.json',
    layout: 'json',
    wrongType: { name: 'wt.json', text: '[{"_ID":"x","email_verified":"no"}]', field: 'email_verified' },
  },
  {
    format: 'totp',
    file: 'totp/firebase-secrets.csv',
    layout: 'lines',
    with: ['firebase/export.json'],
    wrongType: { name: 'wt.csv', text: 'email,secret,skew\nann@example.com,AAAAAAAAAAAAAAAA,one\n', field: 'totp[0].skew' },
  },
];

let tmp: Awaited<ReturnType<typeof tempDir>>;
let hashConfig: HashConfig;
beforeAll(async () => {
  tmp = await tempDir();
  hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
});
afterAll(async () => {
  await tmp.cleanup();
});

describe.each(SAMPLES)('$format reader on $file', (sample) => {
  const paths = (path: string): string[] => [...(sample.with ?? []).map(fixture), path];
  const read = (path: string): ReturnType<typeof collect> => collect(paths(path), { hashConfig });
  const records = async (path: string): Promise<unknown[]> => (await read(path)).records.map((r) => r.record);
  const text = (): Promise<string> => readFile(fixture(sample.file), 'utf8');
  const name = (suffix: string): string => sample.file.replace(/[/.]/g, '-') + suffix;

  it('reads the same records with a BOM and with CRLF line ends', async () => {
    const plain = await records(fixture(sample.file));
    expect(plain.length).toBeGreaterThan(0);
    const bom = await tmp.file(name('-bom'), '\uFEFF' + (await text()));
    const crlf = await tmp.file(name('-crlf'), (await text()).replace(/\r?\n/g, '\r\n'));
    expect(await records(bom)).toEqual(plain);
    expect(await records(crlf)).toEqual(plain);
    expect((await read(crlf)).all.filter((p) => p.severity === 'error')).toEqual([]);
  });

  it('handles a truncated file', async () => {
    const full = await text();
    const cut = await tmp.file(name('-cut'), full.slice(0, Math.floor(full.length * 0.7)));
    if (sample.layout === 'json') {
      const { error, records: before } = await readUntilError(paths(cut), {
        hashConfig,
        format: sample.format === 'totp' ? undefined : sample.format,
      });
      expect(error.message).toContain(cut);
      expect(error.message).toMatch(/the JSON ends early at byte \d+ \(line \d+\)/);
      expect(before.length).toBeGreaterThan(0);
    } else {
      const { problems, records: read } = await collect(paths(cut), { hashConfig });
      expect(read.length).toBeGreaterThan(0);
      const lastLine = full.slice(0, Math.floor(full.length * 0.7)).split('\n').length;
      expect(problems.some((p) => p.origin.file === cut && p.origin.line === lastLine)).toBe(true);
    }
  });

  it.each(['auto', 'forced'])('refuses binary garbage and an empty file (%s format)', async (mode) => {
    const options = { hashConfig, ...(mode === 'forced' ? { format: sample.format } : {}) };
    const garbage = await tmp.file(name(`-garbage-${mode}`), Buffer.from([0x7b, 0x22, 0x00, 0xff, 0xfe, 0x10, 0x80, 0x22]));
    const empty = await tmp.file(name(`-empty-${mode}`), '');
    const g = await readUntilError([garbage], options);
    expect(g.error.message).toMatch(
      new RegExp(`${garbage.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a text export \\(binary data at byte 2\\)`),
    );
    const e = await readUntilError([empty], options);
    expect(e.error.message).toContain(`${empty} is empty (0 bytes)`);
  });

  it('names a field of the wrong type and keeps the record', async () => {
    const path = await tmp.file(name(`-${sample.wrongType.name}`), sample.wrongType.text);
    const { all, records: read } = await collect(paths(path), { hashConfig, format: sample.format === 'totp' ? undefined : sample.format });
    expect(read.length).toBeGreaterThan(0);
    const problem = all.find((p) => p.field === sample.wrongType.field);
    expect(problem, JSON.stringify(all)).toBeDefined();
    expect(problem!.severity).toBe('error');
    expect(problem!.origin.file).toBe(path);
  });
});
