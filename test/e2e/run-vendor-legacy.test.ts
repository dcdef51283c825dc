// The vendor users whose passwords the core cannot take, end to end: Clerk's md5 and Django pbkdf2 digests and
// Cognito's native users (no hash exported) run into a sandbox with --unusable-hashes without-password; the
// users with another way in are created, password-only users are not, and every one is in the sign-in migration
// file with what the app needs (the md5 digest checks the fixture's password; Cognito's username). Also:
// validate --json on each vendor fixture lists what was mapped and what was dropped, and why.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-vendor-legacy-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Line {
  sourceId: string;
  outcome: string;
  algorithm: string;
  hash: string;
  email?: string;
  userId?: string;
  params?: Record<string, string>;
}

async function runWithoutPassword(
  name: string,
  file: string,
  extra: string[] = [],
): Promise<{ summary: Record<string, unknown>; lines: Line[] }> {
  const run = await cli(
    [
      'run',
      resolve(FIXTURES, file),
      '--sandbox',
      '--store',
      `${name}.store.json`,
      '--unusable-hashes',
      'without-password',
      ...extra,
      '--json',
    ],
    dir,
    env,
  );
  const summary = summaryOf(run.stdout) as Record<string, unknown> & { runFolder: string; skipped: number };
  // Password-only users are listed, not created: run counts them skipped and exits 1.
  expect(run.exitCode, run.stderr).toBe(summary.skipped > 0 ? 1 : 0);
  const lines = readFileSync(join(summary.runFolder, 'signin-migration.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  return { summary, lines: lines.sort((a, b) => (a.email ?? '').localeCompare(b.email ?? '')) };
}

describe('vendor users without a usable hash', () => {
  it('Clerk md5 and Django pbkdf2 digests go to the sign-in migration file', async () => {
    const { summary, lines } = await runWithoutPassword('clerk-legacy', 'clerk/legacy-hashes.csv');
    // Both have nothing but a password: listed, not created.
    expect(summary).toMatchObject({ total: 2, imported: 0, skipped: 2, failed: 0 });
    expect(lines.map((l) => [l.sourceId, l.outcome, l.algorithm, l.userId])).toEqual([
      ['user_2leg', 'skipped', 'md5', undefined],
      ['user_2pbk', 'skipped', 'pbkdf2_sha256_django', undefined],
    ]);
    expect(lines[0]!.hash).toBe(createHash('md5').update('legacy-md5-pw').digest('hex'));
  });

  it('Cognito native users: phone and linked-login users are created, email-only ones listed with their username', async () => {
    const map = join(dir, 'okta.json');
    writeFileSync(map, '{"Okta": "okta"}');
    const { summary, lines } = await runWithoutPassword('cognito-native', 'cognito/native-users.json', ['--provider-map', map]);
    // ivy (a verified phone, no email) comes in with phone sign-in and is not listed: a password needs an email.
    // jo's Google login, listed twice by Cognito (jo's identities and the IdP user), is one user with both.
    expect(summary).toMatchObject({ total: 6, imported: 4, skipped: 2, failed: 0 });
    expect(lines.map((l) => [l.email, l.outcome, l.algorithm, l.hash, l.params?.['username'], l.userId !== undefined])).toEqual([
      ['eve@cognito.example', 'skipped', 'aws_cognito', '', 'eve', false],
      ['fay@cognito.example', 'skipped', 'aws_cognito', '', expect.stringMatching(/^[0-9a-f-]{36}$/), false],
      ['gus@cognito.example', 'imported', 'aws_cognito', '', 'gus', true],
      ['hal@cognito.example', 'imported', 'aws_cognito', '', 'hal', true],
      ['jo@cognito.example', 'imported', 'aws_cognito', '', 'jo', true],
    ]);
  });

  it('without the option, validate names the option for them', async () => {
    const v = await cli(['validate', resolve(FIXTURES, 'cognito/native-users.json'), '--json'], dir, env);
    expect(v.exitCode).toBe(1);
    const doc = JSON.parse(v.stdout) as { problems: Array<{ rule: string; message: string }> };
    const unusable = doc.problems.filter((p) => p.rule === 'password.unusable');
    expect(unusable).toHaveLength(5);
    expect(unusable[0]!.message).toContain('--unusable-hashes without-password');
  });
});

describe('validate --json lists what was mapped and what was dropped', () => {
  const cases: Array<[string, string[], string]> = [
    ['firebase/export.csv', ['--hash-config', resolve(FIXTURES, 'firebase/hash-config.txt')], 'firebase-csv'],
    ['clerk/users.csv', [], 'clerk'],
    ['cognito/list-users.json', [], 'cognito'],
  ];
  for (const [file, extra, format] of cases) {
    it(file, async () => {
      const v = await cli(['validate', resolve(FIXTURES, file), ...extra, '--json'], dir, env);
      expect(v.exitCode, v.stderr).toBe(0);
      const fields = (JSON.parse(v.stdout) as { summary: { fields: { mapped: unknown[]; dropped: unknown[] } } }).summary.fields;
      expect(fields.mapped.length).toBeGreaterThan(5);
      expect(fields.dropped.length).toBeGreaterThan(0);
      for (const e of [...fields.mapped, ...fields.dropped] as Array<Record<string, unknown>>) {
        expect(e['format']).toBe(format);
        expect(typeof e['field']).toBe('string');
        expect(typeof (e['to'] ?? e['reason'])).toBe('string');
        expect(e['records']).toBeGreaterThan(0);
      }
    });
  }
});
