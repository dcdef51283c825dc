// Issue 33 point 6: users a run leaves out are named with their reason: the first few in the run's lines and its
// --json summary, every one in the report (with its email); `verify` says "not migrated (the run leaves it out)"
// for them, and the sign-in check (--credentials) says "not migrated: disabled or blocked in the source", never
// "wrong credentials", for a user that was never migrated. The fixtures' own users: a banned Supabase user
// (ed.sb, banned until 2999) and a disabled Firebase user (fbw-kim), with the passwords fixtures/README.md lists.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const fx = (p: string): string => join(FIXTURES, p);
const readme = readFileSync(fx('README.md'), 'utf8');
const passwordOf = (email: string): string => new RegExp(`\\| ${email.replace('.', '\\.')} \\| \`([^\`]+)\``).exec(readme)![1]!;
const SIGNER_KEY = /base64_signer_key\s+(\S+)/.exec(readme)![1]!;
const SUPABASE = ['supabase/users.csv', 'supabase/identities.csv', 'supabase/mfa_factors.csv'].map(fx);
const HASH_CONFIG = ['--hash-config', fx('firebase/hash-config.txt')];
const ED = 'aa09ac52-be9c-4f70-a76c-646a001f0c84';
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };

let dir: string;
let core: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-skipped-'));
  core = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SIGNER_KEY });
});
afterAll(async () => {
  await core?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('users left out are named with why', () => {
  it('a banned Supabase user: named in the lines, the summary and the report; verify and the sign-in check say not migrated', async () => {
    const run = await cli(['run', ...SUPABASE, ...HASH_CONFIG, '--core', core.url, '--yes', '--journal', 'sb.ndjson', '--json'], dir, env);
    expect(run.exitCode, run.stderr).toBe(1); // a user left out: not all ok
    expect(run.stderr).toMatch(
      /not migrated: 1 user skipped \(1 disabled or blocked in the source\); all in the report \S+sb\.report\.ndjson/,
    );
    expect(run.stderr).toContain(`  ${ED} (ed.sb@example.com): disabled or blocked in the source`);
    const summary = summaryOf(run.stdout);
    expect(summary).toMatchObject({ skipped: 1, skippedByReason: { DISABLED: 1 } });
    expect(summary.skippedUsers).toEqual([
      expect.objectContaining({
        id: ED,
        email: 'ed.sb@example.com',
        status: 'DISABLED',
        reason: expect.stringMatching(/^disabled or blocked/),
      }),
    ]);
    const report = readFileSync(join(dir, 'sb.report.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(report.find((l) => l.id === ED)).toMatchObject({ outcome: 'skipped', status: 'DISABLED', email: 'ed.sb@example.com' });
    // Imported users' lines carry no email (the report names who was left out or failed).
    expect(report.find((l) => l.outcome === 'imported')?.email).toBeUndefined();
    // The core indeed has no ed.sb: the check below is of a user never migrated.
    expect((await client(core.url).listUsersByAccountInfo({ email: 'ed.sb@example.com' })).users).toEqual([]);

    writeFileSync(
      join(dir, 'known.csv'),
      `ed.sb@example.com,${passwordOf('ed.sb@example.com')}\nada.sb@example.com,${passwordOf('ada.sb@example.com')}\n`,
    );
    const verify = await cli(
      ['verify', ...SUPABASE, ...HASH_CONFIG, '--core', core.url, '--journal', 'sb.ndjson', '--credentials', 'known.csv'],
      dir,
      env,
    );
    expect(verify.stderr).toContain(`not migrated (the run leaves it out): ${ED} (ed.sb@example.com): disabled or blocked in the source`);
    expect(verify.stderr).toContain(
      'credentials line 1: ed.sb@example.com did not sign in: not migrated: disabled or blocked in the source',
    );
    expect(verify.stderr).not.toMatch(/WRONG_CREDENTIALS|wrong credentials/i);
    expect(verify.stderr).toMatch(/credentials 1\/2 signed in \(1 not migrated: left out by the run\)/);
    expect(verify.exitCode, verify.stderr).toBe(0); // a user left out on purpose is not a failure

    const json = await cli(
      ['verify', ...SUPABASE, ...HASH_CONFIG, '--core', core.url, '--journal', 'sb.ndjson', '--credentials', 'known.csv', '--json'],
      dir,
      env,
    );
    const failed = (JSON.parse(json.stdout) as { credentials: { failed: Array<Record<string, string>> } }).credentials.failed;
    expect(failed).toEqual([{ email: 'ed.sb@example.com', status: 'NOT_MIGRATED', reason: expect.stringMatching(/^disabled or blocked/) }]);
  });

  it('a disabled Firebase user: named in the run lines with its email', async () => {
    const run = await cli(
      ['run', fx('firebase/with-warnings.json'), ...HASH_CONFIG, '--core', core.url, '--yes', '--journal', 'fb.ndjson'],
      dir,
      env,
    );
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain('not migrated: 1 user skipped (1 disabled or blocked in the source)');
    expect(run.stderr).toContain('  fbw-kim (kim@example.com): disabled or blocked in the source');
  });
});
