// `run --sync` on the sandbox, small and quick: every kind of change through the per-user steps, a sync stopped
// midway and carried on (exact, nothing twice), what users changed in the core since left alone, and a rollback of
// the sync that puts the core back as the first run left it (from the previous export) and lists the hashes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { BIN, cleanEnv, cli, client, LICENSE, summaryOf, waitFor } from '../support/cli.js';
import { SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';
import { buildSyncSets } from '../support/sync-sets.js';

const sizes = { users: 150, new: 6, password: 6, email: 4, devicesRemoved: 4, devicesAdded: 4, disabled: 4, deleted: 4, profile: 4 };
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE, AUTH_MIGRATE_SIGNER_KEY: SCRYPT_SIGNER_KEY };
const expected = {
  new: 6,
  password: 6,
  email: 4,
  'devices removed': 4,
  'devices added': 4,
  metadata: 4,
  'roles added': 8,
  'roles removed': 4,
  removed: 4,
};
let dir: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-sync-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const args = (file: string, out: string, ...more: string[]) => [
  'run',
  file,
  '--core',
  sandbox.url,
  '--yes',
  '--out',
  out,
  '--disabled',
  'role:disabled',
  ...more,
];

describe('run --sync', () => {
  it('a sync stopped midway carries on exactly; a rollback of it puts the first run back', async () => {
    const sets = buildSyncSets(sizes, 'a');
    writeNdjson(join(dir, 'a-1.ndjson'), sets.base);
    writeNdjson(join(dir, 'a-2.ndjson'), sets.newer);
    const first = await cli([...args('a-1.ndjson', 'runs-a'), '--json'], dir, env);
    expect(first.exitCode, first.stderr.slice(-2000)).toBe(0);

    // Stopped (SIGINT) after a few users, then the same command again: it carries on in the same sync folder.
    const child = execa(
      process.execPath,
      [BIN, ...args('a-2.ndjson', 'runs-a', '--sync', '--remove-missing', '--concurrency', '1', '--json-events')],
      {
        cwd: dir,
        env: cleanEnv(env),
        extendEnv: false,
        reject: false,
      },
    );
    let users = 0;
    child.stderr!.on('data', (b: Buffer) => (users += (b.toString().match(/"type":"user-done"/g) ?? []).length));
    await waitFor(() => users >= 5, 'five synced users');
    child.kill('SIGINT');
    expect((await child).exitCode).toBe(130);
    const again = await cli([...args('a-2.ndjson', 'runs-a', '--sync', '--remove-missing'), '--json'], dir, env);
    expect(again.exitCode, again.stderr.slice(-2000)).toBe(0);
    expect(again.stderr).toMatch(/carrying on from the sync that stopped/);
    const summary = summaryOf(again.stdout) as { resumed: number; journal: string; applied: Record<string, number> };
    expect(summary.resumed).toBeGreaterThanOrEqual(5);
    const verify = await cli(['verify', 'a-2.ndjson', '--core', sandbox.url, '--disabled', 'role:disabled', '--json'], dir, env);
    expect(verify.exitCode, verify.stdout.slice(0, 2000)).toBe(0);
    // Every change exactly once over both attempts: the journal's created steps count them.
    const lines = readFileSync(summary.journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const created = (prefix: string) => lines.filter((l) => typeof l.step === 'string' && l.step.startsWith(prefix) && l.created).length;
    expect(created('sync:password')).toBe(expected.password);
    expect(created('sync:email:')).toBe(expected.email);
    expect(created('sync:remove-totp:')).toBe(expected['devices removed']);
    expect(created('sync:remove-user')).toBe(expected.removed);

    // Rollback of the sync: the first export's state again (verify with TOTP codes proves the restored secrets).
    const rollback = await cli(['rollback', '--journal', summary.journal, '--yes', '--core', sandbox.url, '--json'], dir, env);
    expect(rollback.exitCode, rollback.stderr.slice(-3000)).toBe(0);
    expect(rollback.stderr).toMatch(/password hash the sync imported stays/);
    const back = await cli(['verify', 'a-1.ndjson', '--core', sandbox.url, '--disabled', 'role:disabled', '--json'], dir, env);
    expect(back.exitCode, back.stdout.slice(0, 3000)).toBe(0);
    const core = client(sandbox.url);
    for (const c of sets.changedPasswords) expect((await core.signIn(c.email, c.now)).status).toBe('OK'); // listed, not restored
    for (const c of sets.changedEmails) expect((await core.listUsersByAccountInfo({ email: c.old })).users).toHaveLength(1);
  }, 300_000);

  it('leaves what users changed in the core since, and says so; a dry run names the users; the next sync looks only at what it left', async () => {
    const sets = buildSyncSets(sizes, 'b');
    writeNdjson(join(dir, 'b-1.ndjson'), sets.base);
    writeNdjson(join(dir, 'b-2.ndjson'), sets.newer);
    expect((await cli([...args('b-1.ndjson', 'runs-b'), '--json'], dir, env)).exitCode).toBe(0);
    const core = client(sandbox.url);
    // Since the first run: a device the app added to a user whose device the export drops, and a login added to a
    // user the export no longer has.
    const dropping = sets.base.find((u) => u.id === sets.devicesRemoved[0])!;
    const dropUser = (
      await core.listUsersByAccountInfo(dropping.email ? { email: dropping.email } : { phoneNumber: dropping.phoneNumber! })
    ).users[0]!;
    await core.importTotpDevice({
      userId: dropUser.id,
      deviceName: 'added-by-the-app',
      secretKey: 'JBSWY3DPEHPK3PXP',
      period: 30,
      skew: 1,
    });
    const goneUser = sets.base.find((u) => u.id === sets.deleted.find((id) => sets.base.find((x) => x.id === id)?.password))!;
    const goneCore = (await core.listUsersByAccountInfo({ email: goneUser.email! })).users[0]!;
    const gh = await core.thirdPartySignInUp({
      thirdPartyId: 'github',
      thirdPartyUserId: `gh-${goneUser.id}`,
      email: { id: 'x@example.com', isVerified: false },
    });
    if (gh.status !== 'OK') throw new Error(gh.status);
    if (!goneCore.isPrimaryUser) await core.createPrimaryUser(goneCore.id);
    expect((await core.linkAccounts(gh.recipeUserId, goneCore.id)).status).toBe('OK');

    const dry = await cli([...args('b-2.ndjson', 'runs-b', '--sync', '--dry-run', '--remove-missing')], dir, env);
    expect(dry.exitCode).toBe(0);
    const goneLine = /gone from the export: 4 users, removed if .*: (.*)/.exec(dry.stdout)?.[1] ?? '';
    // Each named by its source id and, where the previous export gave one, its email.
    expect(
      goneLine
        .split(', ')
        .map((who) => who.split(' ')[0])
        .sort(),
    ).toEqual([...sets.deleted].sort());
    for (const id of sets.deleted) {
      const email = sets.base.find((u) => u.id === id)?.email;
      if (email) expect(goneLine).toContain(`${id} (${email})`);
    }
    expect(dry.stdout).toMatch(/changed password: 6 users: /);
    expect(dry.stdout).not.toMatch(/\$2[aby]\$/); // no hash in the plan
    // Every changed user's steps (--steps): a login is named as the user knows it, not by the plan's key for it.
    const steps = await cli([...args('b-2.ndjson', 'runs-b', '--sync', '--dry-run', '--steps')], dir, env);
    expect(steps.stdout).toMatch(/change the email of the email-password login to /);
    expect(steps.stdout).not.toMatch(/login password\b/);

    const sync = await cli([...args('b-2.ndjson', 'runs-b', '--sync', '--remove-missing'), '--json'], dir, env);
    expect(sync.exitCode).toBe(1); // the changed user is left, and said so
    const done = summaryOf(sync.stdout) as { skipped: number; reportFile: string };
    expect(done.skipped).toBe(1);
    const report = readFileSync(done.reportFile, 'utf8');
    expect(report).toMatch(new RegExp(`"id":"${goneUser.id}".*CHANGED_SINCE`));
    expect((await core.getUserById(goneCore.id)).status).toBe('OK');
    const devices = (await core.listTotpDevices(dropUser.id)).devices.map((d) => d.name);
    expect(devices).toEqual(['added-by-the-app']);

    const again = await cli([...args('b-2.ndjson', 'runs-b', '--sync', '--remove-missing'), '--json'], dir, env);
    // Only the user left as it is is looked at again (listed, no write).
    expect(summaryOf(again.stdout)).toMatchObject({ total: 1, skipped: 1, applied: {} });
  }, 300_000);

  it('--via bulk-staged: the first pass staged, then the sync stages the new users and changes the others by steps', async () => {
    const sets = buildSyncSets(sizes, 'c');
    writeNdjson(join(dir, 'c-1.ndjson'), sets.base);
    writeNdjson(join(dir, 'c-2.ndjson'), sets.newer);
    const staged = ['--via', 'bulk-staged', '--job-interval', '5']; // the sandbox's job runs every 5 s
    const first = await cli([...args('c-1.ndjson', 'runs-c', ...staged), '--json'], dir, env);
    expect(first.exitCode, first.stderr.slice(-2000)).toBe(0);
    const dry = await cli([...args('c-2.ndjson', 'runs-c', '--sync', '--dry-run', '--remove-missing'), '--json'], dir, env);
    const predicted = (summaryOf(dry.stdout) as { changes: Record<string, number> }).changes;
    expect(predicted).toEqual(expected);
    const sync = await cli([...args('c-2.ndjson', 'runs-c', '--sync', '--remove-missing', ...staged), '--json'], dir, env);
    expect(sync.exitCode, sync.stderr.slice(-3000)).toBe(0);
    const done = summaryOf(sync.stdout) as { applied: Record<string, number>; journal: string };
    expect(done.applied).toEqual(predicted);
    // New users went through the core's bulk-import job; changed ones by the sync's own steps.
    const lines = readFileSync(done.journal, 'utf8').trim().split('\n');
    const stagedNew = lines.filter((l) => /"step":"bulk-staged"/.test(l)).length;
    expect(stagedNew).toBe(expected.new);
    expect(lines.filter((l) => /"step":"sync:password"/.test(l) && /"created"/.test(l)).length).toBe(expected.password);
    const verify = await cli(['verify', 'c-2.ndjson', '--core', sandbox.url, '--disabled', 'role:disabled', '--json'], dir, env);
    expect(verify.exitCode, verify.stdout.slice(0, 2000)).toBe(0);
    const again = await cli([...args('c-2.ndjson', 'runs-c', '--sync', '--remove-missing', ...staged), '--json'], dir, env);
    expect(summaryOf(again.stdout)).toMatchObject({ changed: 0, total: 0 });
  }, 300_000);
});
