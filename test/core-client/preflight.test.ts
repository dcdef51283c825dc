// Preflight against real sandboxes (licensed, unlicensed, wrong api-key, gone) and, for a version list the sandbox
// cannot produce, a capturing server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient, preflight, type CoreClient } from '../../src/core-client/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { okJson, startCaptureServer } from '../support/capture-server.js';

const KEY = 'preflight-test-key-0123456789';
const FAST = { retries: 1, baseDelayMs: 1, maxDelayMs: 5 };

let licensed: RunningSandbox;
let unlicensed: RunningSandbox;
const clients: CoreClient[] = [];
const client = (url: string, apiKey?: string, cdiVersion?: string) => {
  const c = createCoreClient({ url, apiKey, cdiVersion, retry: FAST });
  clients.push(c);
  return c;
};
beforeAll(async () => {
  [licensed, unlicensed] = await Promise.all([
    startSandbox({ apiKeys: [KEY], licenseKey: 'preflight-licence' }),
    startSandbox({ apiKeys: [KEY] }),
  ]);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all([licensed?.stop(), unlicensed?.stop()]);
});

describe('preflight', () => {
  it('passes against a licensed sandbox with the right key', async () => {
    const r = await preflight(client(licensed.url, KEY));
    expect(r).toMatchObject({
      ok: true,
      reachable: true,
      apiKeyAccepted: true,
      agreedCdiVersion: '5.4',
      totpAllowed: true,
      linkingAllowed: true,
    });
    expect(r.versions).toContain('5.4');
    expect(r.findings.filter((f) => f.level !== 'info')).toEqual([]);
  });

  it('warns before any write that TOTP and linking would be refused without a licence (data unknown), errs when needed', async () => {
    const r = await preflight(client(unlicensed.url, KEY));
    expect(r).toMatchObject({ ok: true, totpAllowed: false, linkingAllowed: false });
    expect(r.findings.map((f) => [f.level, f.code])).toEqual([
      ['warning', 'totp-needs-mfa'],
      ['warning', 'linking-needs-license'],
    ]);
    const strict = await preflight(client(unlicensed.url, KEY), { needs: { totp: true, linking: false } });
    expect(strict.ok).toBe(false);
    // Known data: an error for what it needs, nothing for what it does not.
    expect(strict.findings.map((f) => [f.level, f.code])).toEqual([['error', 'totp-needs-mfa']]);
  });

  it('reports a wrong or missing api-key clearly, without the key', async () => {
    const wrong = 'definitely-not-the-key-0123456789';
    const r = await preflight(client(licensed.url, wrong));
    expect(r).toMatchObject({ ok: false, reachable: true, apiKeyAccepted: false });
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.code).toBe('api-key-rejected');
    expect(r.findings[0]!.message).toMatch(/api-key/);
    expect(JSON.stringify(r)).not.toContain(wrong);
    expect(JSON.stringify(r)).not.toContain(KEY);
    const none = await preflight(client(licensed.url));
    expect(none.findings[0]!.message).toMatch(/none was given/);
  });

  it('checks that the app and tenant exist', async () => {
    const admin = client(licensed.url, KEY);
    await admin.raw({
      method: 'PUT',
      path: '/recipe/multitenancy/app/v2',
      scope: 'app',
      body: { appId: 'pf-app', firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'] },
    });
    const app = createCoreClient({ url: licensed.url, apiKey: KEY, appId: 'pf-app', retry: FAST });
    clients.push(app);
    await app.raw({
      method: 'PUT',
      path: '/recipe/multitenancy/tenant/v2',
      scope: 'app',
      body: { tenantId: 'pf-tenant', firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'] },
    });
    expect((await preflight(app.forTenant('pf-tenant'))).ok).toBe(true);
    for (const c of [app.forTenant('pf-missing'), createCoreClient({ url: licensed.url, apiKey: KEY, appId: 'no-app', retry: FAST })]) {
      const r = await preflight(c);
      expect(r.ok).toBe(false);
      expect(r.findings.map((f) => f.code)).toEqual(['unknown-tenant']);
      expect(r.findings[0]!.message).toMatch(/--app \/ --tenant/);
    }
  });

  it('reports an unreachable core', async () => {
    const gone = await startSandbox({});
    await gone.stop();
    const r = await preflight(client(gone.url, KEY));
    expect(r).toMatchObject({ ok: false, reachable: false });
    expect(r.findings[0]!.code).toBe('unreachable');
    expect(r.findings[0]!.message).toContain(gone.url);
  });

  it('reports a core that does not list the version we speak', async () => {
    const server = await startCaptureServer((req) =>
      req.url === '/hello'
        ? { status: 200, body: 'Hello' }
        : req.url === '/apiversion'
          ? okJson({ versions: ['2.21', '3.0', '4.0'] })
          : okJson({ status: 'OK', features: [] }),
    );
    try {
      const r = await preflight(client(server.url, KEY));
      expect(r.ok).toBe(false);
      expect(r.agreedCdiVersion).toBeUndefined();
      expect(r.findings[0]).toMatchObject({ level: 'error', code: 'cdi-version-unsupported' });
      expect(r.findings[0]!.message).toMatch(/4\.0/);
      const other = await preflight(client(licensed.url, KEY, '5.2'));
      expect(other.ok).toBe(true);
      expect(other.findings.map((f) => f.code)).toEqual(['cdi-version-other']);
    } finally {
      await server.stop();
    }
  });
});
