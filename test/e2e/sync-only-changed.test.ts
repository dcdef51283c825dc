// `run --sync` touches only what changed between the earlier export and the newer one (issue 31, item 4), on the
// sandbox over real HTTP: a password-only change keeps an email the user changed in the core (the hash lands on
// that login, the report names the password alone), a metadata key the app changed in the core and the exports
// agree on stays, two users who swap emails converge, and the sync's rollback gives back exactly what the sync
// changed: an email the user changed since the sync stays (said so), the sync's other changes are undone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
let dir: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-sync-parts-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const hash = (pw: string) => bcrypt.hashSync(pw, 4);
const user = (id: string, email: string, pw: string, extra: Partial<CanonicalUser> = {}): CanonicalUser => ({
  id,
  email,
  emailVerified: true,
  password: { hash: hash(pw) },
  ...extra,
});
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('run --sync: only what changed', () => {
  it('keeps what the user changed in the core, converges a swap, and its rollback gives back only its own changes', async () => {
    const first = [
      user('pw', 'pw@example.com', 'old-Secret-1'),
      user('sa', 'swap-a@example.com', 'sa-Secret-1'),
      user('sb', 'swap-b@example.com', 'sb-Secret-1'),
      user('em', 'em@example.com', 'em-Secret-1', { metadata: { tier: 'basic' } }),
      user('md', 'md@example.com', 'md-Secret-1', { metadata: { tier: 'basic', plan: 'free' } }),
    ];
    const newer = clone(first);
    newer[0]!.password = { hash: hash('new-Secret-2') }; // password only
    newer[1]!.email = 'swap-b@example.com'; // sa and sb swap emails
    newer[2]!.email = 'swap-a@example.com';
    newer[3]!.email = 'em-new@example.com'; // email and metadata
    newer[3]!.metadata = { tier: 'gold' };
    newer[4]!.metadata = { tier: 'gold', plan: 'free' }; // tier only
    writeNdjson(join(dir, 'one.ndjson'), first);
    writeNdjson(join(dir, 'two.ndjson'), newer);
    const args = (file: string, ...more: string[]) => ['run', file, '--core', sandbox.url, '--out', 'runs', '--yes', ...more];
    const run = await cli([...args('one.ndjson'), '--json'], dir, env);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);

    const core = client(sandbox.url);
    const login = async (email: string) => (await core.listUsersByAccountInfo({ email })).users[0]!.loginMethods[0]!;
    // Since the first run: the user changes its own email in the core; the app changes a metadata key.
    const pw = await login('pw@example.com');
    const put = async (recipeUserId: string, email: string) =>
      JSON.parse(
        (await core.raw({ method: 'PUT', path: '/recipe/user', scope: 'app', rid: 'emailpassword', body: { recipeUserId, email } })).text,
      ) as { status: string };
    expect((await put(pw.recipeUserId, 'pw-own@example.com')).status).toBe('OK');
    const md = await login('md@example.com');
    await core.updateUserMetadata(md.recipeUserId, { plan: 'pro' });

    const sync = await cli([...args('two.ndjson', '--sync'), '--json'], dir, env);
    expect(sync.exitCode, sync.stderr.slice(-3000)).toBe(0);
    const done = summaryOf(sync.stdout) as { journal: string; reportFile: string; applied: Record<string, number> };
    expect(done.applied).toMatchObject({ password: 1, email: 3, metadata: 2 });

    // The password-only change: the email the user chose stays, the new hash is on its login.
    expect((await core.getUserById(pw.recipeUserId)).status === 'OK' && (await login('pw-own@example.com')).recipeUserId).toBe(
      pw.recipeUserId,
    );
    expect((await core.listUsersByAccountInfo({ email: 'pw@example.com' })).users).toHaveLength(0);
    expect((await core.signIn('pw-own@example.com', 'new-Secret-2')).status).toBe('OK');
    const report = readFileSync(done.reportFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const said = (id: string) => JSON.stringify(report.find((r) => r.id === id));
    expect(said('pw')).toMatch(/updated: password \(/);
    expect(said('pw')).not.toMatch(/updated: [^(]*email/);
    // The swap converged: each user signs in with its own password under the other's former email.
    expect((await core.signIn('swap-b@example.com', 'sa-Secret-1')).status).toBe('OK');
    expect((await core.signIn('swap-a@example.com', 'sb-Secret-1')).status).toBe('OK');
    expect(said('sa')).toMatch(/updated: email/);
    // Only the key the exports disagree on was written: the app's `plan` stays.
    expect((await core.getUserMetadata(md.recipeUserId)).metadata).toEqual({ tier: 'gold', plan: 'pro' });
    const verify = await cli(['verify', 'two.ndjson', '--core', sandbox.url, '--json'], dir, env);
    // pw's email and md's `plan` are the core's own now (not the export's): the only users verify reports.
    const problems = (summaryOf(verify.stdout) as { problems: Array<{ id: string }> }).problems.map((p) => p.id);
    expect(problems.sort()).toEqual(['md', 'pw']);

    // After the sync, `em` changes its own email in the core: the rollback leaves it, and undoes the rest.
    const em = await login('em-new@example.com');
    expect((await put(em.recipeUserId, 'em-own@example.com')).status).toBe('OK');
    const rollback = await cli(['rollback', '--journal', done.journal, '--core', sandbox.url, '--yes'], dir, env);
    expect(rollback.exitCode, rollback.stderr.slice(-3000)).toBe(0);
    expect(rollback.stdout + rollback.stderr).toMatch(/email was changed in the core since the sync: left/);
    expect((await login('em-own@example.com')).recipeUserId).toBe(em.recipeUserId);
    expect((await core.getUserMetadata(em.recipeUserId)).metadata).toEqual({ tier: 'basic' });
    expect((await core.signIn('swap-a@example.com', 'sa-Secret-1')).status).toBe('OK');
    expect((await core.signIn('swap-b@example.com', 'sb-Secret-1')).status).toBe('OK');
    // The password-only user: nothing of its email to give back; its own email is still there.
    expect((await login('pw-own@example.com')).recipeUserId).toBe(pw.recipeUserId);
    expect((await core.getUserMetadata(md.recipeUserId)).metadata).toEqual({ tier: 'basic', plan: 'pro' });
  }, 300_000);
});
