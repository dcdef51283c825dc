// `-` reads an export from standard input: the built CLI is spawned with each fixture set's first file on a pipe,
// with detection from the first bytes and with --format, and must report exactly what it reports for the file
// itself; a run from a pipe migrates into a sandbox and verify (from a pipe too) passes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const sets = JSON.parse(readFileSync(join(FIXTURES, 'sets.json'), 'utf8')) as Array<{ name: string; files: string[]; hashConfig?: string }>;
const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
const signerKey = /base64_signer_key\s+(\S+)/.exec(readme)![1]!;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-stdin-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function piped(args: string[], inputFile?: string, env: Record<string, string> = {}) {
  return execa(process.execPath, [BIN, ...args], {
    cwd: dir,
    reject: false,
    env: cleanEnv(env),
    extendEnv: false,
    ...(inputFile ? { inputFile } : { input: '' }),
  });
}

interface Report {
  summary: Record<string, unknown>;
  problems: Array<{ origin: { file: string }; message: string; rule: string }>;
}

/** The report with the piped file's name put back, so the two reads compare equal. */
function normalised(stdout: string, file: string): Report {
  const doc = JSON.parse(stdout) as Report;
  for (const p of doc.problems) if (p.origin.file === '-') p.origin.file = file;
  return doc;
}

describe('validate - reads every reader from a pipe', () => {
  for (const set of sets) {
    it(`${set.name}: ${set.files[0]} on standard input`, async () => {
      const files = set.files.map((f) => resolve(FIXTURES, f));
      const extra = set.hashConfig ? ['--hash-config', resolve(FIXTURES, set.hashConfig)] : ['--signer-key', signerKey];
      const direct = await piped(['validate', ...files, ...extra, '--json']);
      const fromPipe = await piped(['validate', '-', ...files.slice(1), ...extra, '--json'], files[0]);
      expect(fromPipe.stderr).toBe('');
      expect(fromPipe.exitCode).toBe(direct.exitCode);
      expect(normalised(fromPipe.stdout, files[0]!)).toEqual(JSON.parse(direct.stdout));
    });
  }

  it('with --format, and with the format told from the first bytes', async () => {
    const clerk = resolve(FIXTURES, 'clerk/users.csv');
    const forced = await piped(['validate', '-', '--format', 'clerk', '--json'], clerk);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect((JSON.parse(forced.stdout) as Report).summary).toMatchObject({ records: 6, valid: 6 });
    // The same bytes forced into another reader are read as that reader's format (and fail there).
    const wrong = await piped(['validate', '-', '--format', 'cognito'], clerk);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain('-');
  });

  it('says so when the pipe is empty or `-` is given twice', async () => {
    const empty = await piped(['validate', '-']);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('standard input (-) is empty');
    const twice = await piped(['validate', '-', '-'], resolve(FIXTURES, 'clerk/users.csv'));
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain('given more than once');
  });
});

describe('run - and verify - into a sandbox', () => {
  it('migrates the Clerk export from a pipe; its passwords sign in and TOTP codes verify', async () => {
    const clerk = resolve(FIXTURES, 'clerk/users.csv');
    // fay's scrypt_firebase digest needs the Firebase project's signer key (in its hash config).
    const common = ['-', '--sandbox', '--store', 'stdin.store.json', '--hash-config', resolve(FIXTURES, 'firebase/hash-config.txt')];
    const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
    const run = await piped(['run', ...common, '--json'], clerk, env);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(summaryOf(run.stdout)).toMatchObject({ total: 6, imported: 6, failed: 0, skipped: 0 });
    // The fields Clerk has and the core cannot hold are named by run too.
    expect(run.stderr).toContain('source fields not carried over: clerk backup_codes (1), clerk backup_codes_enabled (1),');
    const section = readme.split(/^### /m).find((s) => s.startsWith('clerk\n'))!;
    const creds = [...section.matchAll(/^\|\s*`[^`]*`\s*\|\s*(\S+@\S+)\s*\|\s*`([^`]+)`/gm)].map((m) => `${m[1]},${m[2]}`);
    expect(creds).toHaveLength(5);
    const credsFile = join(dir, 'clerk.creds.csv');
    (await import('node:fs')).writeFileSync(credsFile, creds.join('\n') + '\n');
    const verify = await piped(['verify', ...common, '--credentials', credsFile, '--json'], clerk, env);
    expect(verify.exitCode, verify.stdout + verify.stderr).toBe(0);
    expect(summaryOf(verify.stdout)).toMatchObject({ ok: 6, totpCodesChecked: true, credentials: { checked: 5, ok: 5 } });
    // The private copy of the pipe is gone with the process.
    expect(run.stderr + verify.stderr).not.toContain('auth-migrate-stdin-');
  });
});
