// Preflight learns the target without writing (issue 9): the scrypt algorithm name it takes and whether it holds
// the signer key (probe order per ImportUserWithPasswordHashAPITest: name, then signer key, then format), and the
// tenant's login methods (TenantConfig.toJson_v2_5_1). Real sandboxes, and a proxy answering as the reference does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient, preflight, type CoreClient } from '../../src/core-client/index.js';
import { PROBE_EMAIL } from '../../src/core-client/probe-scrypt.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startReferenceNamesProxy, type ReferenceNamesProxy } from '../support/reference-names-proxy.js';

const KEY = 'preflight-target-key-0123456789';
const SIGNER = 'oACH+/dHnLht/nR9I2c/J30RZcRJMAptl8xLNKiLwjG4dMX+PcEnUmk/JrmTIEMMn909/bdmTa3z7LHr1e8dCg==';
const FAST = { retries: 1, baseDelayMs: 1, maxDelayMs: 5 };
const SCRYPT = { scrypt: true, loginMethods: ['emailpassword' as const] };

let signed: RunningSandbox;
let unsigned: RunningSandbox;
let reference: ReferenceNamesProxy;
const clients: CoreClient[] = [];
const client = (url: string, opts: { tenantId?: string } = {}) => {
  const c = createCoreClient({ url, apiKey: KEY, retry: FAST, ...opts });
  clients.push(c);
  return c;
};
const userCount = async (c: CoreClient) => (await c.listUsers({ limit: 10 })).users.length;

beforeAll(async () => {
  [signed, unsigned] = await Promise.all([
    startSandbox({ apiKeys: [KEY], licenseKey: 'pf-licence', signerKey: SIGNER }),
    startSandbox({ apiKeys: [KEY], licenseKey: 'pf-licence' }),
  ]);
  reference = await startReferenceNamesProxy(signed.url);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await reference?.stop();
  await Promise.all([signed?.stop(), unsigned?.stop()]);
});

describe('preflight: external scrypt', () => {
  it('learns the mission name on a core that takes it, with the signer key, and writes nothing', async () => {
    const c = client(signed.url);
    const r = await preflight(c, { needs: SCRYPT });
    expect(r).toMatchObject({ ok: true, scryptAlgorithmName: 'external_scrypt', signerKey: true });
    expect(await userCount(c)).toBe(0);
    expect((await c.listUsersByAccountInfo({ email: PROBE_EMAIL })).users).toEqual([]);
  });

  it('learns firebase_scrypt on a core that answers external_scrypt with 400 Unsupported (the reference)', async () => {
    const c = client(reference.url);
    const before = reference.refused;
    const r = await preflight(c, { needs: SCRYPT });
    expect(r).toMatchObject({ ok: true, scryptAlgorithmName: 'firebase_scrypt', signerKey: true });
    expect(reference.refused).toBe(before + 1);
    expect(await userCount(c)).toBe(0);
  });

  it('refuses, before any write, a core without the signer key when the plan has scrypt hashes', async () => {
    const c = client(unsigned.url);
    const r = await preflight(c, { needs: SCRYPT });
    expect(r.ok).toBe(false);
    expect(r.signerKey).toBe(false);
    expect(r.findings.find((f) => f.code === 'signer-key-missing')?.message).toMatch(/signer key/);
    expect(await userCount(c)).toBe(0);
    // A plan without scrypt hashes does not ask.
    expect((await preflight(c, { needs: { loginMethods: ['emailpassword'] } })).ok).toBe(true);
  });

  it('an operator override probes only that name', async () => {
    const r = await preflight(client(reference.url), { needs: SCRYPT, scryptAlgorithmName: 'external_scrypt' });
    expect(r.ok).toBe(false);
    expect(r.findings.map((f) => f.code)).toContain('scrypt-name-unsupported');
  });
});

describe('preflight: the tenant login methods', () => {
  it('refuses a plan that needs a login method the tenant has disabled, and names it', async () => {
    const admin = client(signed.url);
    await admin.raw({
      method: 'PUT',
      path: '/recipe/multitenancy/tenant/v2',
      scope: 'app',
      body: { tenantId: 'only-social', firstFactors: ['thirdparty'] },
    });
    const t = admin.forTenant('only-social');
    const r = await preflight(t, { needs: { loginMethods: ['emailpassword', 'thirdparty'] } });
    expect(r.ok).toBe(false);
    expect(r.disabledLoginMethods).toEqual(['emailpassword', 'passwordless']);
    const finding = r.findings.find((f) => f.code === 'login-method-disabled')!;
    expect(finding.message).toMatch(/emailpassword login disabled/);
    expect((await preflight(t, { needs: { loginMethods: ['thirdparty'] } })).ok).toBe(true);
  });

  it('does not mention licence features the data does not need', async () => {
    const bare = await startSandbox({ apiKeys: [KEY] });
    try {
      const r = await preflight(client(bare.url), { needs: { totp: false, linking: false, loginMethods: ['emailpassword'] } });
      expect(r.ok).toBe(true);
      expect(r.findings.filter((f) => f.level !== 'info')).toEqual([]);
    } finally {
      await bare.stop();
    }
  });
});
