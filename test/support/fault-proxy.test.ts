// The fault proxy itself: each fault kind as a client sees it, drops after forwarding (the target did the work),
// determinism for a seed, added latency, and faithful forwarding of paths, headers and bodies.
import { afterEach, describe, expect, it } from 'vitest';
import { createCoreClient, CoreUnreachableError, type CoreClient } from '../../src/core-client/index.js';
import { okJson, startCaptureServer, type CaptureServer } from './capture-server.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

const KEY = 'proxy-test-key-0123456789';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(proxyOpts: Omit<Parameters<typeof startFaultProxy>[0], 'target'>, retries = 0) {
  const target = await startCaptureServer(() => okJson({ status: 'OK', user: { id: 'u' } }));
  cleanups.push(() => target.stop());
  const proxy = await startFaultProxy({ target: target.url, ...proxyOpts });
  cleanups.push(() => proxy.stop());
  const client = createCoreClient({ url: proxy.url, apiKey: KEY, retry: { retries, baseDelayMs: 1, maxDelayMs: 5 }, maxRetryAfterMs: 0 });
  cleanups.push(() => client.close());
  return { target, proxy, client };
}

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof CoreUnreachableError ? err.reason : String(err);
  }
}

describe('fault proxy', () => {
  it('injects each fault kind as told by the sequence', async () => {
    const { target, proxy, client } = await setup({ sequence: ['503', '429', 'drop', 'reset-after-forward', null], retryAfter: '7' });
    const seen: string[] = [];
    const forwardedBefore: number[] = [];
    for (let i = 0; i < 5; i++) {
      forwardedBefore.push(target.requests.length);
      seen.push(await outcome(client.createPrimaryUser(`r${i}`)));
    }
    expect(seen[0]).toBe('HTTP 503');
    expect(seen[1]).toBe('HTTP 429 (Retry-After 7)');
    expect(seen[2]).toMatch(/ECONNRESET|socket hang up/);
    expect(seen[3]).toMatch(/ECONNRESET|socket hang up/);
    expect(seen[4]).toBe('ok');
    // Only the after-forward drop and the clean request reached the target.
    expect(target.requests.map((r) => JSON.parse(r.body).recipeUserId)).toEqual(['r3', 'r4']);
    expect(proxy.stats).toMatchObject({
      requests: 5,
      forwarded: 2,
      answered: 1,
      faults: { '503': 1, '429': 1, drop: 1, 'reset-after-forward': 1 },
    });
    expect(proxy.stats.resetAfterForward).toEqual(['POST /recipe/accountlinking/user/primary']);
  });

  it('a drop after forwarding makes the client repeat a step the target already performed', async () => {
    const { target, client } = await setup({ sequence: ['reset-after-forward'] }, 3);
    const res = await client.linkAccounts('r1', 'p1');
    expect(res.status).toBe('OK');
    expect(target.requests).toHaveLength(2);
    expect(target.requests[0]!.body).toBe(target.requests[1]!.body);
  });

  it('is deterministic for a seed, different for another, and near the asked rate', async () => {
    async function decisions(seed: number): Promise<Array<string | null>> {
      const { proxy, client } = await setup({ seed, faultRate: 0.3, retryAfter: '0' });
      for (let i = 0; i < 120; i++) await outcome(client.getUserById(`u${i}`));
      return proxy.stats.decisions;
    }
    const a = await decisions(42);
    const b = await decisions(42);
    const c = await decisions(43);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const faults = a.filter((d) => d !== null);
    expect(faults.length).toBeGreaterThan(15);
    expect(faults.length).toBeLessThan(60);
    expect(new Set(faults)).toEqual(new Set(['503', '429', 'drop', 'reset-after-forward']));
  });

  it('with retries, every request of a faulty stream succeeds and the target sees each at least once', async () => {
    const { target, proxy, client } = await setup({ seed: 7, faultRate: 0.2, retryAfter: '0' }, 10);
    const ids = Array.from({ length: 100 }, (_, i) => `u${i}`);
    await Promise.all(ids.map((id) => client.getUserById(id)));
    const reached = new Set(target.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('userId')));
    expect(reached).toEqual(new Set(ids));
    expect(proxy.stats.requests).toBeGreaterThan(100);
  });

  it('adds the fixed latency to each request', async () => {
    const { client } = await setup({ latencyMs: 60 });
    const started = Date.now();
    await client.getUserById('u');
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
  });

  it('forwards method, path under the target base path, headers and body', async () => {
    const target: CaptureServer = await startCaptureServer(() => okJson({ status: 'OK' }));
    cleanups.push(() => target.stop());
    const proxy: FaultProxy = await startFaultProxy({ target: `${target.url}/core` });
    cleanups.push(() => proxy.stop());
    const client: CoreClient = createCoreClient({ url: proxy.url, apiKey: KEY, tenantId: 't1' });
    cleanups.push(() => client.close());
    await client.updatePasswordlessUser({ recipeUserId: 'r', email: 'e@x.y' });
    const r = target.requests[0]!;
    expect(`${r.method} ${r.url}`).toBe('PUT /core/recipe/user');
    expect(r.headers).toMatchObject({
      'api-key': KEY,
      'cdi-version': '5.4',
      rid: 'passwordless',
      'content-type': 'application/json; charset=utf-8',
    });
    expect(JSON.parse(r.body)).toEqual({ recipeUserId: 'r', email: 'e@x.y' });
  });

  it('answers 502 while the target is down', async () => {
    const target = await startCaptureServer();
    const url = target.url;
    await target.stop();
    const proxy = await startFaultProxy({ target: url });
    cleanups.push(() => proxy.stop());
    const client = createCoreClient({ url: proxy.url, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    cleanups.push(() => client.close());
    expect(await outcome(client.getUserById('u'))).toBe('HTTP 502');
    expect(proxy.stats.badGateway).toBe(2);
  });
});
