// The sandbox's keys as `auth-migrate core` and startSandbox take them (issue 23): a spawned sandbox (a rehearsal)
// gets exactly the licence given, none meaning none, whatever its store kept; `core` reads AUTH_MIGRATE_API_KEY,
// AUTH_MIGRATE_LICENSE_KEY and AUTH_MIGRATE_SIGNER_KEY like every other command (the reference core's API_KEYS and
// *_PASSWORD_HASHING_SIGNER_KEY still work); a refused start is reported with one "auth-migrate:" prefix.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/spawn.js';
import { BIN, cleanEnv } from '../support/cli.js';
import { call } from '../support/sandbox.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-sandbox-keys-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const features = async (url: string) => (await call(url, 'GET', '/ee/featureflag')).json.features as string[];
const KEY = 'sandbox-keys-test-api-key-0001';

/** `auth-migrate core` run directly (no startSandbox), answering once its ready line is out. */
async function core(args: string[], env: Record<string, string>): Promise<{ url: string; child: ResultPromise; stop(): Promise<void> }> {
  const child = execa(process.execPath, [BIN, 'core', '--port', '0', ...args], { env: cleanEnv(env), extendEnv: false, reject: false });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /core listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void child.then((r) => reject(new Error(`core exited: ${String(r.stderr)}`)));
  });
  return {
    url,
    child,
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}

describe('a spawned sandbox gets exactly the licence given', () => {
  it('a store that held a licence (given at start or by PUT /ee/license) has none when none is given, and the new one when one is', async () => {
    const store = join(dir, 'licence.json');
    const first = await startSandbox({ store, licenseKey: 'licence-one' });
    expect(await features(first.url)).toEqual(expect.arrayContaining(['mfa', 'account_linking', 'multi_tenancy']));
    await first.stop();
    const bare = await startSandbox({ store });
    try {
      expect(await features(bare.url)).toEqual([]);
      expect((await call(bare.url, 'GET', '/ee/license')).json).toEqual({ status: 'NO_LICENSE_KEY_FOUND_ERROR' });
      expect((await call(bare.url, 'PUT', '/ee/license', { licenseKey: 'put-by-hand' })).json.status).toBe('OK');
    } finally {
      await bare.stop();
    }
    const again = await startSandbox({ store });
    try {
      expect(await features(again.url)).toEqual([]);
    } finally {
      await again.stop();
    }
    const other = await startSandbox({ store, licenseKey: 'licence-two' });
    try {
      expect((await call(other.url, 'GET', '/ee/license')).json).toEqual({ status: 'OK', licenseKey: 'licence-two' });
    } finally {
      await other.stop();
    }
  });

  it('`core` itself keeps a stored licence across restarts (as the reference keeps it in its database) unless --reset-license', async () => {
    const store = join(dir, 'core-licence.json');
    let c = await core(['--store', store], { AUTH_MIGRATE_LICENSE_KEY: 'kept-licence' });
    await c.stop();
    c = await core(['--store', store], {});
    expect((await call(c.url, 'GET', '/ee/license')).json).toEqual({ status: 'OK', licenseKey: 'kept-licence' });
    await c.stop();
    c = await core(['--store', store, '--reset-license'], {});
    expect(await features(c.url)).toEqual([]);
    await c.stop();
  });
});

describe('`core` reads the AUTH_MIGRATE_* keys like every other command', () => {
  it('AUTH_MIGRATE_API_KEY is required of callers; API_KEYS (the reference core name) is merged in', async () => {
    const other = 'sandbox-keys-test-api-key-0002';
    const c = await core(['--store', join(dir, 'api.json')], { AUTH_MIGRATE_API_KEY: KEY, API_KEYS: other });
    try {
      expect((await call(c.url, 'GET', '/users/count')).status).toBe(401);
      expect((await call(c.url, 'GET', '/users/count', undefined, { 'api-key': KEY })).json).toEqual({ status: 'OK', count: 0 });
      expect((await call(c.url, 'GET', '/users/count', undefined, { 'api-key': other })).status).toBe(200);
    } finally {
      await c.stop();
    }
  });

  it('AUTH_MIGRATE_SIGNER_KEY is read (a bad one refuses the start naming it); the old names still are', async () => {
    const bad = await execa(process.execPath, [BIN, 'core', '--port', '0', '--store', join(dir, 'signer.json')], {
      env: cleanEnv({ AUTH_MIGRATE_SIGNER_KEY: 'not base64!' }),
      extendEnv: false,
      reject: false,
    });
    expect([bad.exitCode, bad.stderr]).toEqual([2, expect.stringContaining('AUTH_MIGRATE_SIGNER_KEY')]);
    expect(bad.stderr).not.toContain('not base64!');
    const old = await execa(process.execPath, [BIN, 'core', '--port', '0', '--store', join(dir, 'signer2.json')], {
      env: cleanEnv({ FIREBASE_PASSWORD_HASHING_SIGNER_KEY: 'not base64!' }),
      extendEnv: false,
      reject: false,
    });
    expect(old.exitCode).toBe(2);
  });

  it('the help names the AUTH_MIGRATE_* variables', async () => {
    const h = await execa(process.execPath, [BIN, 'core', '--help'], { env: cleanEnv(), extendEnv: false });
    for (const name of ['AUTH_MIGRATE_API_KEY', 'AUTH_MIGRATE_LICENSE_KEY', 'AUTH_MIGRATE_SIGNER_KEY', '--reset-license', 'reads=RATE']) {
      expect(h.stdout).toContain(name);
    }
  });
});

describe('a refused start', () => {
  it('says "the sandbox core did not start: the sandbox store ... is in use" with no second prefix', async () => {
    const store = join(dir, 'busy.json');
    const first = await startSandbox({ store });
    try {
      const err = await startSandbox({ store }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(
        new RegExp(`^the sandbox core did not start: the sandbox store ${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use`),
      );
      expect(err?.message).not.toContain('auth-migrate:');
    } finally {
      await first.stop();
    }
  });
});
