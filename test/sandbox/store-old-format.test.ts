// A store written by an earlier version stays readable: fixtures/store-main-a23cfe2.json is the snapshot main's
// sandbox wrote (commit a23cfe2) after `run fixtures/canonical/users.json --sandbox`. Every record comes back
// exactly as the file holds it, and the sandbox started on it answers as it did: the known passwords sign in,
// the external id, the links, the verified emails and the TOTP devices are there.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { COLLECTION_NAMES, openStore } from '../../src/sandbox/store/index.js';
import { client, LICENSE, startTestSandbox } from '../support/sandbox.js';

const FIXTURE = new URL('./fixtures/store-main-a23cfe2.json', import.meta.url).pathname;
const SIGNER_KEY = 'oACH+/dHnLht/nR9I2c/J30RZcRJMAptl8xLNKiLwjG4dMX+PcEnUmk/JrmTIEMMn909/bdmTa3z7LHr1e8dCg==';
const KNOWN = [
  ['ada@example.com', 'ada-StrF2LDv'],
  ['bob@example.com', 'bob-7eR8YMEb'],
  ['cy@example.com', 'cy-peRbSVMr'],
  ['eve@example.com', 'eve-pXk8nXts'],
];

let dir: string;
let sb: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-store-old-'));
  copyFileSync(FIXTURE, join(dir, 'store.json'));
  sb = await startTestSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SIGNER_KEY });
});
afterAll(async () => {
  await sb?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a sandbox store written by main at a23cfe2', () => {
  it('loads every record exactly as the file holds it', async () => {
    const copy = join(dir, 'in-process.json');
    copyFileSync(FIXTURE, copy);
    const file = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { seq: number; collections: Record<string, Record<string, unknown>> };
    const store = await openStore(copy);
    try {
      expect(store.state.seq).toBe(file.seq);
      for (const c of COLLECTION_NAMES) {
        expect(Object.fromEntries(store.state.maps[c] as Map<string, unknown>), c).toEqual(file.collections[c]);
      }
      expect(store.state.maps.users.size).toBe(10);
    } finally {
      await store.close();
    }
  });

  it('answers as before: sign-ins, the external id, links, verified emails and TOTP devices', async () => {
    const api = client(sb, { 'cdi-version': '5.0' });
    for (const [email, password] of KNOWN) {
      const a = await api.post('/recipe/signin', { email, password });
      expect(a.json.status, email).toBe('OK');
      expect((await api.post('/recipe/signin', { email, password: `${password}x` })).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    }
    const ada = (await api.get('/user/id?userId=ext-ada-1815')).json;
    expect(ada.status).toBe('OK');
    expect(ada.user.id).toBe('ext-ada-1815');
    expect(ada.user.loginMethods).toEqual([
      expect.objectContaining({ email: 'ada@example.com', verified: true, recipeId: 'emailpassword' }),
    ]);
    const devices = (await api.get('/recipe/totp/device/list?userId=ext-ada-1815')).json;
    expect(devices).toEqual({ status: 'OK', devices: [{ name: "Ada's phone", period: 30, skew: 1, verified: true }] });

    // eve: password and GitHub first factors, email and SMS factors, all linked to one primary user.
    const eve = (await api.post('/recipe/signin', { email: 'eve@example.com', password: 'eve-pXk8nXts' })).json.user;
    expect(eve.isPrimaryUser).toBe(true);
    expect(eve.loginMethods.map((m: { recipeId: string }) => m.recipeId).sort()).toEqual(['emailpassword', 'passwordless', 'thirdparty']);
    expect(eve.loginMethods.every((m: { verified: boolean }) => m.verified)).toBe(true);
    const count = (await api.get('/users/count')).json;
    expect(count).toEqual({ status: 'OK', count: 6 });
  });
});
