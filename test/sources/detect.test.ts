import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/sources/index.js';
import { sniffFormat } from '../../src/sources/detect.js';
import { UserError } from '../../src/errors.js';
import { expectOneLine, fixture, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('format detection', () => {
  it.each([
    ['canonical/users.json', 'canonical'],
    ['canonical/users.ndjson', 'canonical'],
    ['canonical/users-bom-crlf.json', 'canonical'],
    ['firebase/export.json', 'firebase'],
    ['firebase/export-websafe.json', 'firebase'],
    ['auth0/passwords.ndjson', 'auth0'],
    ['auth0/passwords-array.json', 'auth0'],
    ['auth0/users.ndjson.gz', 'auth0'],
    ['totp/firebase-secrets.csv', 'totp'],
    ['totp/firebase-otpauth.txt', 'totp'],
    ['broken/otpauth-bad.txt', 'totp'],
  ])('%s is %s', async (path, format) => {
    expect(await detectFormat(fixture(path))).toBe(format);
  });

  it.each([
    ['empty.json', /is empty/],
    ['garbage.bin', /is not a text export \(binary data at byte/],
    ['not-gzip.ndjson.gz', /is named \.gz but is not gzip-compressed/],
  ])('refuses broken/%s with a one-line message', async (name, pattern) => {
    const err = await detectFormat(fixture(`broken/${name}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toMatch(pattern);
    expectOneLine((err as UserError).message);
  });

  it('asks for --format when it cannot tell', async () => {
    const path = await tmp.file('notes.txt', 'hello world\n');
    await expect(detectFormat(path)).rejects.toThrow(
      /cannot tell the format of .*notes\.txt \(it is not JSON, NDJSON, a CSV with a secret column, a Firebase or Clerk CSV export or otpauth:\/\/ lines\); pass --format canonical, firebase, auth0, totp, firebase-csv, clerk, supabase, keycloak or cognito/,
    );
  });

  it('sniffs from content and name', () => {
    expect(sniffFormat('  \n{"users": [{"localId": "x"}]}')).toBe('firebase');
    expect(sniffFormat('{"user_id":"github|1"}')).toBe('auth0');
    expect(sniffFormat('[{"id":"a","thirdParty":[{"providerId":"google","userId":"auth0|x"}]}]')).toBe('canonical');
    expect(sniffFormat('email,secret\n')).toBe('totp');
    expect(sniffFormat('"userId","secret"\n')).toBe('totp');
    expect(sniffFormat('a;b\n', 'secrets.csv')).toBe('totp');
    expect(sniffFormat('OTPAUTH://totp/x?secret=A')).toBe('totp');
    expect(sniffFormat('id;name')).toBeNull();
  });
});

describe('files with no content', () => {
  it.each([
    ['only a BOM', '\uFEFF'],
    ['only white space', ' \r\n\t\n'],
  ])('refuses a file with %s', async (_name, content) => {
    const t = await tempDir();
    try {
      const path = await t.file('blank.json', content);
      await expect(detectFormat(path)).rejects.toThrow(/blank\.json has no content \(only white space or a byte order mark\)/);
      const { readSources } = await import('../../src/sources/index.js');
      const read = async (): Promise<void> => {
        for await (const _ of readSources([path], { format: 'canonical' })) void _;
      };
      await expect(read()).rejects.toThrow(/has no content/);
    } finally {
      await t.cleanup();
    }
  });
});
