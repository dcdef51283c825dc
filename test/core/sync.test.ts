// `run --sync` against a real core (`AUTH_MIGRATE_TEST_CORE_URL` + `AUTH_MIGRATE_TEST_CORE_API_KEY`, e.g. the
// reference SuperTokens core; skipped, saying why, without one): a first run, then a newer export with every kind
// of change; the dry run's prediction is what the sync does, `verify` reads every user back, the changed passwords
// sign in, and a second sync sends no request. Every user has this run's own prefix; only those are looked at.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../src/core-client/client.js';
import type { CoreClient } from '../../src/core-client/types.js';
import { startCountProxy, type CountProxy } from '../support/count-proxy.js';
import { cli, summaryOf } from '../support/cli.js';
import { buildSyncSets } from '../support/sync-sets.js';
import { CORE_API_KEY, CORE_URL, skippedWithoutCore } from '../support/real-core.js';
import { SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

const URL_ = CORE_URL;
const KEY = CORE_API_KEY;
skippedWithoutCore('test/core/sync.test.ts');

const sizes = { users: 300, new: 10, password: 10, email: 5, devicesRemoved: 5, devicesAdded: 5, disabled: 5, deleted: 5, profile: 5 };
let dir: string;
let core: CoreClient;
let proxy: CountProxy;
let ready = false;
const env = { AUTH_MIGRATE_API_KEY: KEY, AUTH_MIGRATE_SIGNER_KEY: SCRYPT_SIGNER_KEY };

beforeAll(async () => {
  if (!URL_) return;
  dir = mkdtempSync(join(tmpdir(), 'am-core-sync-'));
  core = createCoreClient({ url: URL_, apiKey: KEY, retry: { retries: 8, baseDelayMs: 100, maxDelayMs: 2000 } });
  const features = (await core.featureFlags()).features;
  ready = features.includes('mfa') && features.includes('account_linking');
  if (!ready) console.warn('test/core/sync.test.ts: skipped: the core offers no TOTP or account linking (the mixed users need both)');
  proxy = await startCountProxy(URL_);
});
afterAll(async () => {
  core?.close();
  await proxy?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!URL_)('run --sync against a real core', () => {
  it('makes exactly the predicted changes, matches the newer export, and a second sync sends nothing', async () => {
    if (!ready) return;
    const sets = buildSyncSets(sizes, `sy${randomBytes(3).toString('hex')}`);
    writeNdjson(join(dir, 'export-1.ndjson'), sets.base);
    writeNdjson(join(dir, 'export-2.ndjson'), sets.newer);
    const common = ['--core', proxy.url, '--yes', '--disabled', 'role:disabled', '--json'];
    const first = await cli(['run', 'export-1.ndjson', ...common], dir, env);
    expect(first.exitCode, first.stderr.slice(-2000)).toBe(0);

    const dry = await cli(['run', 'export-2.ndjson', '--sync', '--dry-run', '--remove-missing', ...common], dir, env);
    expect(dry.exitCode, dry.stderr.slice(-2000)).toBe(0);
    const predicted = (summaryOf(dry.stdout) as { changes: Record<string, number> }).changes;
    expect(predicted).toMatchObject({ new: 10, password: 10, email: 5, 'devices removed': 5, 'devices added': 5, metadata: 5, removed: 5 });

    proxy.reset();
    const sync = await cli(['run', 'export-2.ndjson', '--sync', '--remove-missing', ...common], dir, env);
    expect(sync.exitCode, sync.stderr.slice(-3000)).toBe(0);
    expect((summaryOf(sync.stdout) as { applied: Record<string, number> }).applied).toEqual(predicted);

    const verify = await cli(['verify', 'export-2.ndjson', '--core', URL_!, '--disabled', 'role:disabled', '--json'], dir, env);
    expect(verify.exitCode, verify.stdout.slice(0, 3000)).toBe(0);
    for (const c of sets.changedPasswords) {
      expect((await core.signIn(c.email, c.now)).status, c.email).toBe('OK');
      expect((await core.signIn(c.email, c.old)).status, c.email).toBe('WRONG_CREDENTIALS_ERROR');
    }
    for (const c of sets.changedEmails) expect((await core.listUsersByAccountInfo({ email: c.old })).users).toEqual([]);
    for (const id of sets.deleted) {
      const u = sets.base.find((x) => x.id === id)!;
      if (u.email && u.password) expect((await core.listUsersByAccountInfo({ email: u.email })).users, id).toEqual([]);
    }

    proxy.reset();
    const again = await cli(['run', 'export-2.ndjson', '--sync', '--remove-missing', ...common], dir, env);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(proxy.total()).toBe(0);
  }, 600_000);
});
