// Issue 10, done-when 1: a Firebase export and an Auth0 export with profile fields and roles run into the sandbox;
// the core's user metadata and roles answer what the source held (under the external id where one is mapped); a
// rerun changes nothing; verify reports a metadata or role difference made by hand.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { parseHashConfig } from '../../src/sources/index.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const hashConfigPath = join(FIXTURES, 'firebase/hash-config.txt');
let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-vendor-'));
  const { signerKey } = parseHashConfig(readFileSync(hashConfigPath, 'utf8'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: signerKey! });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
const firebase = [join(FIXTURES, 'firebase/export.json'), '--hash-config', hashConfigPath];
const auth0 = [join(FIXTURES, 'auth0/passwords.ndjson'), join(FIXTURES, 'auth0/users.ndjson.gz')];

describe('vendor profiles into the core', () => {
  it('Firebase: displayName, photoUrl, lastSignedInAt and custom claims are the user metadata; a rerun changes nothing', async () => {
    const r = await cli(['run', ...firebase, '--core', sandbox.url, '--yes', '--journal', 'fb.ndjson', '--json'], dir, env);
    expect(r.exitCode, r.stderr).toBe(0);
    const core = client(sandbox.url);
    const ann = (await core.listUsersByAccountInfo({ email: 'ann@example.com' })).users[0]!.id;
    expect((await core.getUserMetadata(ann)).metadata).toEqual({
      displayName: 'Ann Archer',
      photoUrl: 'https://example.com/photos/ann.jpg',
      lastSignedInAt: 1656633600000,
      customAttributes: { plan: 'pro', admin: true },
    });
    const again = await cli(['run', ...firebase, '--core', sandbox.url, '--yes', '--journal', 'fb2.ndjson', '--json'], dir, env);
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, failed: 0 });
    expect((await core.getUserMetadata(ann)).metadata['displayName']).toBe('Ann Archer');
    // A claim changed by hand is a difference verify reports, without its value.
    await core.updateUserMetadata(ann, { customAttributes: { plan: 'free' } });
    const v = await cli(['verify', ...firebase, '--core', sandbox.url, '--json'], dir, env);
    expect(v.exitCode).toBe(1);
    const out = JSON.parse(v.stdout) as { problems: Array<{ id: string; differences: string[] }> };
    expect(out.problems.find((p) => p.id === 'fb-ann')?.differences).toEqual([
      'metadata key "customAttributes" differs from the source (changed since, or another value)',
    ]);
    expect(v.stdout).not.toContain('free');
    core.close();
  });

  it('Auth0: name, nickname, picture, user_metadata, app_metadata and roles; a role taken away is reported', async () => {
    const r = await cli(['run', ...auth0, '--core', sandbox.url, '--yes', '--journal', 'a0.ndjson', '--json'], dir, env);
    expect(r.exitCode, r.stderr).toBe(0);
    const core = client(sandbox.url);
    const gus = (await core.listUsersByAccountInfo({ email: 'gus@example.com' })).users[0]!.id;
    expect((await core.getUserMetadata(gus)).metadata).toEqual({
      name: 'Gus Grant',
      nickname: 'gus',
      picture: 'https://example.com/avatars/gus.png',
      user_metadata: { theme: 'dark', locale: 'en-GB' },
      app_metadata: { plan: 'pro', authorization: { roles: ['editor'] } },
    });
    expect((await core.getUserRoles(gus)).roles).toEqual(['editor']);
    const hal = (await core.listUsersByAccountInfo({ email: 'hal@example.com' })).users[0]!.id;
    expect((await core.getUserRoles(hal)).roles.sort()).toEqual(['admin', 'editor']);
    const again = await cli(['run', ...auth0, '--core', sandbox.url, '--yes', '--journal', 'a02.ndjson', '--json'], dir, env);
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, failed: 0 });
    expect((await core.getUserRoles(hal)).roles.sort()).toEqual(['admin', 'editor']);
    await core.raw({ method: 'POST', path: '/recipe/user/role/remove', scope: 'tenant', body: { userId: hal, role: 'admin' } });
    const v = await cli(['verify', ...auth0, '--core', sandbox.url, '--json'], dir, env);
    expect(v.exitCode).toBe(1);
    const out = JSON.parse(v.stdout) as { problems: Array<{ id: string; differences: string[] }> };
    expect(out.problems.find((p) => p.id === 'auth0|euclid')?.differences).toEqual(['role "admin" is missing']);
    core.close();
  });
});
