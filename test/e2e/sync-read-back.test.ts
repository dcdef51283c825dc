// `run --sync` reads back every part it writes before its journal says it is done (issue 31, item 5): behind a
// proxy (test/support/bare-ok-proxy.ts) that answers the writes of each part `{"status":"OK"}` without applying
// them, every user touched fails (nothing journalled as applied, no user reported updated), and the same command
// once the proxy lets everything through ends exact: `verify` of the newer export is all ok.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import base32 from 'hi-base32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, LICENSE, summaryOf } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';
import { startBareOkProxy, type BareOkProxy } from '../support/bare-ok-proxy.js';

const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
let dir: string;
let sandbox: RunningSandbox;
let proxy: BareOkProxy;

/** The writes of each part a sync makes (the look-ups and reads go through). */
const WRITES = new Set([
  'POST /recipe/totp/device/import',
  'POST /recipe/user/email/verify',
  'PUT /recipe/user/metadata',
  'PUT /recipe/user/role',
  'PUT /recipe/user',
  'POST /recipe/user/passwordhash/import',
  'POST /recipe/totp/device/remove',
  'POST /recipe/user/role/remove',
  'POST /recipe/user/email/verify/remove',
]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-sync-readback-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
  proxy = await startBareOkProxy(sandbox.url, (method, path) => WRITES.has(`${method} ${path.replace(/^\/appid-[^/]+/, '')}`));
  proxy.setSwallow(false);
});
afterAll(async () => {
  await proxy?.stop();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const secret = () => base32.encode(randomBytes(20)).replace(/=+$/, '');
const user = (id: string, extra: Partial<CanonicalUser> = {}): CanonicalUser => ({
  id,
  email: `${id}@example.com`,
  emailVerified: false,
  password: { hash: bcrypt.hashSync(`${id}-Secret-1`, 4) },
  ...extra,
});

describe('run --sync: every part read back', () => {
  it('a bare OK that applied nothing fails the user; the same command without it ends exact', async () => {
    const first = [
      user('dev'),
      user('ver'),
      user('meta', { metadata: { tier: 'basic' } }),
      user('role', { roles: ['viewer'] }),
      user('mail'),
      user('pass'),
      user('devgone', { totp: [{ secret: secret(), deviceName: 'phone' }] }),
      user('same'),
    ];
    const newer: CanonicalUser[] = JSON.parse(JSON.stringify(first)) as CanonicalUser[];
    const by = (id: string) => newer.find((u) => u.id === id)!;
    by('dev').totp = [{ secret: secret(), deviceName: 'laptop' }];
    by('ver').emailVerified = true;
    by('meta').metadata = { tier: 'gold' };
    by('role').roles = ['viewer', 'member'];
    by('mail').email = 'mail-new@example.com';
    by('pass').password = { hash: bcrypt.hashSync('pass-Secret-2', 4) };
    delete by('devgone').totp;
    writeNdjson(join(dir, 'one.ndjson'), first);
    writeNdjson(join(dir, 'two.ndjson'), newer);
    const args = (file: string, ...more: string[]) => [
      'run',
      file,
      '--core',
      proxy.url,
      '--out',
      'runs',
      '--concurrency',
      '2',
      '--yes',
      ...more,
    ];
    const run = await cli([...args('one.ndjson'), '--json'], dir, env);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);

    proxy.setSwallow(true);
    const sync = await cli([...args('two.ndjson', '--sync'), '--json'], dir, env);
    proxy.setSwallow(false);
    expect(proxy.swallowed.length).toBeGreaterThanOrEqual(7);
    expect(sync.exitCode, sync.stderr.slice(-3000)).toBe(1);
    const done = summaryOf(sync.stdout) as { journal: string; reportFile: string; failed: number; applied: Record<string, number> };
    expect(done.failed).toBe(7);
    expect(done.applied).toEqual({});
    const report = readFileSync(done.reportFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; outcome: string });
    for (const id of ['dev', 'ver', 'meta', 'role', 'mail', 'pass', 'devgone'])
      expect(report.find((r) => r.id === id)?.outcome, id).toBe('failed');
    // Nothing the proxy swallowed is in the journal as done.
    const created = readFileSync(done.journal, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => /"step":"(sync:|totp:|user-role:|verify)/.test(l) && /"created"/.test(l));
    expect(created).toEqual([]);

    const again = await cli([...args('two.ndjson', '--sync'), '--json'], dir, env);
    expect(again.exitCode, again.stderr.slice(-3000)).toBe(0);
    expect((summaryOf(again.stdout) as { failed: number }).failed).toBe(0);
    const verify = await cli(['verify', 'two.ndjson', '--core', proxy.url, '--json'], dir, env);
    expect(verify.exitCode, verify.stdout.slice(0, 3000)).toBe(0);
    const third = await cli([...args('two.ndjson', '--sync'), '--json'], dir, env);
    expect(summaryOf(third.stdout)).toMatchObject({ total: 0 });
  }, 300_000);
});
