// Issue 22's "done when", at full size: a first run of 10,000 mixed users, then a newer export with every kind of
// change; `run --sync --dry-run` predicts the changes, `run --sync` makes exactly those (counted through a proxy),
// the core then matches the newer export (`verify` reads every user back, sign-ins, removed users gone), and a
// second sync sends no request at all. About 2-4 minutes on the loaded 2-core machine (the first run is most of it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startCountProxy, type CountProxy } from '../support/count-proxy.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';
import { buildSyncSets } from '../support/sync-sets.js';

const sizes = {
  users: 10_000,
  new: 100,
  password: 100,
  email: 50,
  devicesRemoved: 50,
  devicesAdded: 50,
  disabled: 50,
  deleted: 50,
  profile: 50,
};
const sets = buildSyncSets(sizes, 'c');
let dir: string;
let sandbox: RunningSandbox;
let proxy: CountProxy;
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE, AUTH_MIGRATE_SIGNER_KEY: SCRYPT_SIGNER_KEY };
const common = () => ['--core', proxy.url, '--yes', '--disabled', 'role:disabled', '--json'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-sync-cutover-'));
  writeNdjson(join(dir, 'export-1.ndjson'), sets.base);
  writeNdjson(join(dir, 'export-2.ndjson'), sets.newer);
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  proxy = await startCountProxy(sandbox.url);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a two-pass cutover of 10,000 users', () => {
  it('syncs exactly the delta, predicted by the dry run, and a second sync sends nothing', async () => {
    const first = await cli(['run', 'export-1.ndjson', ...common(), '--via', 'bulk'], dir, env);
    expect(first.exitCode, first.stderr.slice(-2000)).toBe(0);
    expect(summaryOf(first.stdout)).toMatchObject({ total: sizes.users, imported: sizes.users, failed: 0 });
    const firstRequests = proxy.total();

    proxy.reset();
    const dry = await cli(['run', 'export-2.ndjson', '--sync', '--dry-run', '--remove-missing', ...common()], dir, env);
    expect(dry.exitCode, dry.stderr.slice(-2000)).toBe(0);
    expect(proxy.total()).toBe(0); // the dry run reads the journals and the files, never the core
    const predicted = summaryOf(dry.stdout) as { sync: Record<string, unknown>; changes: Record<string, number> };
    const expected = {
      new: sizes.new,
      password: sizes.password,
      email: sizes.email,
      'devices removed': sizes.devicesRemoved,
      'devices added': sizes.devicesAdded,
      metadata: sizes.profile,
      'roles added': sizes.profile + sizes.disabled,
      'roles removed': sizes.profile,
      removed: sizes.deleted,
    };
    expect(predicted.changes).toEqual(expected);
    expect(predicted.sync).toMatchObject({ new: sizes.new, gone: sizes.deleted, newlyDisabled: sizes.disabled });

    proxy.reset();
    const sync = await cli(['run', 'export-2.ndjson', '--sync', '--remove-missing', '--via', 'bulk', ...common()], dir, env);
    expect(sync.exitCode, sync.stderr.slice(-3000)).toBe(0);
    const done = summaryOf(sync.stdout) as { applied: Record<string, number>; failed: number; unchanged: number };
    expect(done.applied).toEqual(expected);
    expect(done.failed).toBe(0);
    const changedUsers =
      sizes.new + sizes.password + sizes.email + sizes.devicesRemoved + sizes.devicesAdded + sizes.disabled + sizes.profile + sizes.deleted;
    expect(done.unchanged).toBe(sizes.users - changedUsers + sizes.new);
    // Unchanged users cost nothing: the requests scale with the 550 users touched, not the 10,000.
    const syncRequests = proxy.total();
    expect(syncRequests).toBeLessThan(firstRequests * 0.12);
    expect(syncRequests).toBeLessThan(changedUsers * 8);

    // The core matches the newer export: verify reads every user back (logins, devices with codes, metadata, roles).
    const verify = await cli(['verify', 'export-2.ndjson', '--core', sandbox.url, '--disabled', 'role:disabled', '--json'], dir, env);
    expect(verify.exitCode, verify.stderr.slice(-2000)).toBe(0);
    expect(summaryOf(verify.stdout)).toMatchObject({ ok: sets.newer.length, missing: 0, mismatch: 0 });
    const core = client(sandbox.url);
    expect((await allUsers(core)).length).toBe(sets.newer.length);
    for (const c of sets.changedPasswords) {
      expect((await core.signIn(c.email, c.now)).status, c.email).toBe('OK');
      expect((await core.signIn(c.email, c.old)).status, c.email).toBe('WRONG_CREDENTIALS_ERROR');
    }
    for (const c of sets.changedEmails) {
      expect((await core.listUsersByAccountInfo({ email: c.old })).users).toEqual([]);
      expect((await core.listUsersByAccountInfo({ email: c.now })).users).toHaveLength(1);
    }

    // A second sync of the same export: nothing changed, no request at all (so no write).
    proxy.reset();
    const again = await cli(['run', 'export-2.ndjson', '--sync', '--remove-missing', '--via', 'bulk', ...common()], dir, env);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ changed: 0, total: 0 });
    expect(proxy.total()).toBe(0);
    expect(again.stderr).toMatch(/nothing changed since the earlier run: no request was sent/);
  }, 600_000);
});
