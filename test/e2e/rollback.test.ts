// `auth-migrate rollback` (issue 13): after a mixed run into a core that already held users, the core is as before
// the run; the users it found already present are untouched (what the run added to them is taken off). Resumable,
// with --dry-run, and refused while the run's journal is in use.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient } from '../../src/core-client/types.js';
import { openJournal } from '../../src/engine/journal/journal.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let sandbox: RunningSandbox;
let core: CoreClient;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-rollback-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  core = client(sandbox.url);
});
afterAll(async () => {
  core?.close();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything a user is, in a stable order (ids, login methods, primary flags, devices). */
async function coreState(): Promise<string> {
  const users = await allUsers(core);
  const out = [];
  for (const u of users.sort((a, b) => a.id.localeCompare(b.id))) {
    const devices = (await core.listTotpDevices(u.id)).devices.map((d) => d.name).sort();
    out.push({
      id: u.id,
      isPrimaryUser: u.isPrimaryUser,
      methods: u.loginMethods.map((m) => `${m.recipeId}:${m.recipeUserId}:${m.email ?? ''}:${m.phoneNumber ?? ''}:${m.verified}`).sort(),
      devices,
    });
  }
  return JSON.stringify(out, null, 1);
}

describe('rollback', () => {
  it('after a mixed run, the core is as before; present users keep what they had', async () => {
    // Already in the core before the run: a password user, whose source record brings a new Google login and a TOTP device.
    const pre = await core.importPasswordHash({ email: 'pre1@example.test', passwordHash: BCRYPT });
    const before = await coreState();
    const set = generateUsers(60, { prefix: 'rb' });
    set.users.push({
      id: 'pre1',
      email: 'pre1@example.test',
      password: { hash: BCRYPT },
      thirdParty: [{ providerId: 'google', userId: 'g-pre1' }],
      totp: [{ secret: 'JBSWY3DPEHPK3PXP', deviceName: 'added' }],
    });
    writeNdjson(join(dir, 'users.ndjson'), set.users);
    const run = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(summaryOf(run.stdout)).toMatchObject({ total: 61, failed: 0 });
    const during = await core.getUserById(pre.user.id);
    expect(during.status === 'OK' && during.user.loginMethods.length).toBe(2);

    const dry = await cli(['rollback', '--journal', 'j.ndjson', '--core', sandbox.url, '--dry-run'], dir);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/user pre1: remove a google login \S+: POST \/user\/remove/); // the Google login it created
    expect(dry.stdout).toContain(`user pre1: make ${pre.user.id} non-primary again`);
    expect(dry.stdout).toMatch(/user pre1: remove TOTP device "added"/);
    expect(dry.stdout).not.toMatch(new RegExp(`remove (an? \\S+ login|user) ${pre.user.id}`));
    expect(await coreState()).not.toBe(before); // the dry run changed nothing

    const r = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--core', sandbox.url, '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ removed: 60, undone: 1, kept: 0, failed: 0 });
    expect(await coreState()).toBe(before);
    // The present user still signs in with its password.
    expect((await core.signIn('pre1@example.test', 'U*U')).status).toBe('OK');

    // Resumable: the same command finds everything done.
    const again = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--core', sandbox.url, '--json'], dir);
    expect(summaryOf(again.stdout)).toMatchObject({ removed: 0, undone: 0, failed: 0, doneBefore: 61 });
  });

  it('refuses a journal whose run is still going, and a journal of another target', async () => {
    const path = join(dir, 'busy.journal.ndjson');
    const held = await openJournal(path, { sources: [join(dir, 'users.ndjson')], target: `${sandbox.url} tenant=public app=public` });
    try {
      const r = await cli(['rollback', '--journal', path, '--yes', '--core', sandbox.url], dir);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`the journal ${path} is in use by auth-migrate run`);
    } finally {
      await held.close();
    }
    const other = await cli(['rollback', '--journal', path, '--yes', '--core', 'http://127.0.0.1:9'], dir);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/belongs to a run into .*, not http:\/\/127\.0\.0\.1:9/);
  });
});
