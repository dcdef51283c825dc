// What the client sends (paths, prefixes, headers, bodies) and how it treats answers (business statuses,
// retries, Retry-After, typed errors, timeouts, keep-alive), checked against a capturing node:http server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCoreClient,
  CoreAuthError,
  CoreConfigError,
  CoreHttpError,
  CoreLicenseError,
  CoreProtocolError,
  CoreUnreachableError,
  type CoreClient,
  type RetryInfo,
} from '../../src/core-client/index.js';
import { UserError } from '../../src/errors.js';
import { okJson, startCaptureServer, type CaptureServer } from '../support/capture-server.js';

const KEY = 'test-api-key-0123456789abcdef';
const FAST = { retries: 3, baseDelayMs: 1, maxDelayMs: 5 };

let server: CaptureServer | undefined;
let client: CoreClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.stop();
  server = undefined;
});

async function setup(handler?: Parameters<typeof startCaptureServer>[0], opts: Partial<Parameters<typeof createCoreClient>[0]> = {}) {
  server = await startCaptureServer(handler);
  client = createCoreClient({ url: server.url, apiKey: KEY, retry: FAST, ...opts });
  return { server, client };
}

describe('paths', () => {
  const user = { id: 'u1' };
  const cases: Array<[string, (c: CoreClient) => Promise<unknown>, string, string]> = [
    ['importPasswordHash', (c) => c.importPasswordHash({ email: 'a@b.c', passwordHash: 'h' }), 'POST', '/recipe/user/passwordhash/import'],
    [
      'thirdPartySignInUp',
      (c) => c.thirdPartySignInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g1', email: { id: 'a@b.c', isVerified: true } }),
      'POST',
      '/recipe/signinup',
    ],
    ['createCode', (c) => c.createCode({ phoneNumber: '+14155550100' }), 'POST', '/recipe/signinup/code'],
    ['consumeCode', (c) => c.consumeCode({ preAuthSessionId: 'p', linkCode: 'l' }), 'POST', '/recipe/signinup/code/consume'],
    ['signIn', (c) => c.signIn('a@b.c', 'pw'), 'POST', '/recipe/signin'],
    ['verifyTotp', (c) => c.verifyTotp('u1', '123456'), 'POST', '/recipe/totp/verify'],
    ['verifyTotpDevice', (c) => c.verifyTotpDevice({ userId: 'u1', deviceName: 'd', totp: '1' }), 'POST', '/recipe/totp/device/verify'],
    ['listUsers', (c) => c.listUsers({ limit: 10, paginationToken: 'a+b=' }), 'GET', '/users?limit=10&paginationToken=a%2Bb%3D'],
  ];
  const appCases: Array<[string, (c: CoreClient) => Promise<unknown>, string, string]> = [
    ['updatePasswordlessUser', (c) => c.updatePasswordlessUser({ recipeUserId: 'r1', email: 'x@y.z' }), 'PUT', '/recipe/user'],
    ['createPrimaryUser', (c) => c.createPrimaryUser('r1'), 'POST', '/recipe/accountlinking/user/primary'],
    ['linkAccounts', (c) => c.linkAccounts('r1', 'p1'), 'POST', '/recipe/accountlinking/user/link'],
    ['createUserIdMapping', (c) => c.createUserIdMapping({ superTokensUserId: 's', externalUserId: 'e' }), 'POST', '/recipe/userid/map'],
    ['getUserIdMapping', (c) => c.getUserIdMapping('e 1', 'EXTERNAL'), 'GET', '/recipe/userid/map?userId=e%201&userIdType=EXTERNAL'],
    [
      'importTotpDevice',
      (c) => c.importTotpDevice({ userId: 'u1', secretKey: 'S', period: 30, skew: 1 }),
      'POST',
      '/recipe/totp/device/import',
    ],
    ['listTotpDevices', (c) => c.listTotpDevices('u1'), 'GET', '/recipe/totp/device/list?userId=u1'],
    ['getUserById', (c) => c.getUserById('u1'), 'GET', '/user/id?userId=u1'],
    ['featureFlags', (c) => c.featureFlags(), 'GET', '/ee/featureflag'],
    ['getLicense', (c) => c.getLicense(), 'GET', '/ee/license'],
    ['setLicense', (c) => c.setLicense('L'), 'PUT', '/ee/license'],
    ['deleteLicense', (c) => c.deleteLicense(), 'DELETE', '/ee/license'],
    ['removeTotpDevice', (c) => c.removeTotpDevice('u1', 'd'), 'POST', '/recipe/totp/device/remove'],
  ];

  it.each([...cases, ...appCases])('%s without prefix on the public tenant', async (_n, call, method, path) => {
    const { server, client } = await setup(() => okJson({ status: 'OK', user, versions: ['5.4'] }));
    await call(client);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`${method} ${path}`]);
  });

  it.each(cases)('%s is tenant-specific: base path, app and tenant prefix', async (_n, call, method, path) => {
    server = await startCaptureServer(() => okJson({ status: 'OK' }));
    client = createCoreClient({ url: `${server.url}/base/path/`, apiKey: KEY, tenantId: 'Tenant-1', appId: 'app1', retry: FAST });
    await call(client);
    expect(server.requests[0]!.method).toBe(method);
    expect(server.requests[0]!.url).toBe(`/base/path/appid-app1/tenant-1${path}`);
  });

  it.each(appCases)('%s is app-specific: app prefix only, whatever the tenant', async (_n, call, method, path) => {
    server = await startCaptureServer(() => okJson({ status: 'OK' }));
    client = createCoreClient({ url: `${server.url}/base`, apiKey: KEY, tenantId: 't1', appId: 'app1', retry: FAST });
    await call(client);
    expect(`${server.requests[0]!.method} ${server.requests[0]!.url}`).toBe(`${method} /base/appid-app1${path}`);
  });

  it('hello and apiversion keep the base path; forTenant shares the pool and changes only the tenant', async () => {
    server = await startCaptureServer((r) =>
      r.url.endsWith('/hello') ? { status: 200, body: 'Hello' } : okJson({ versions: ['5.4'], status: 'OK' }),
    );
    client = createCoreClient({ url: `${server.url}/b`, apiKey: KEY, appId: 'a', retry: FAST });
    expect(await client.hello()).toBe('Hello');
    expect(await client.apiVersion()).toEqual({ versions: ['5.4'], status: 'OK' });
    const t2 = client.forTenant('t2');
    await t2.signIn('a@b.c', 'x');
    await t2.getUserById('u');
    expect(server.requests.map((r) => r.url)).toEqual([
      '/b/hello',
      '/b/appid-a/apiversion',
      '/b/appid-a/t2/recipe/signin',
      '/b/appid-a/user/id?userId=u',
    ]);
    // undici's Pool opens a second socket for a request sent while the first socket is still being set up.
    expect(server.connections).toBeLessThanOrEqual(2);
    const ports = new Set(server.requests.slice(0, 2).map((r) => r.remotePort));
    for (const r of server.requests.slice(2)) expect(ports).toContain(r.remotePort);
  });

  it('refuses tenant ids the core would refuse, before any request', () => {
    expect(() => createCoreClient({ url: 'http://127.0.0.1:1', tenantId: 'recipe' })).toThrow(UserError);
    expect(() => createCoreClient({ url: 'http://127.0.0.1:1', tenantId: 'a/b' })).toThrow(/not a valid tenant id/);
    expect(() => createCoreClient({ url: 'ftp://x' })).toThrow(/http:\/\//);
  });
});

describe('headers and bodies', () => {
  it('sends api-key, cdi-version, JSON content type and length on bodies, rid only on the passwordless PUT', async () => {
    const { server, client } = await setup();
    await client.importPasswordHash({ email: 'a@b.c', passwordHash: '$2a$10$x', hashingAlgorithm: 'bcrypt' });
    await client.updatePasswordlessUser({ recipeUserId: 'r1', phoneNumber: null });
    await client.getUserById('u1');
    const [imp, put, get] = server.requests;
    expect(imp!.headers['api-key']).toBe(KEY);
    expect(imp!.headers['cdi-version']).toBe('5.4');
    expect(imp!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(imp!.headers['content-length'])).toBe(Buffer.byteLength(imp!.body));
    expect(imp!.headers['rid']).toBeUndefined();
    expect(JSON.parse(imp!.body)).toEqual({ email: 'a@b.c', passwordHash: '$2a$10$x', hashingAlgorithm: 'bcrypt' });
    expect(put!.headers['rid']).toBe('passwordless');
    expect(JSON.parse(put!.body)).toEqual({ recipeUserId: 'r1', phoneNumber: null });
    expect(get!.headers['content-type']).toBeUndefined();
    expect(get!.headers['api-key']).toBe(KEY);
    expect(get!.headers.connection).toBe('keep-alive');
  });

  it('omits api-key when none is configured and sends the chosen cdi-version', async () => {
    server = await startCaptureServer();
    client = createCoreClient({ url: server.url, cdiVersion: '5.2', retry: FAST });
    await client.thirdPartySignInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g', email: { id: 'e@x.y', isVerified: false } });
    expect(server.requests[0]!.headers['api-key']).toBeUndefined();
    expect(server.requests[0]!.headers['cdi-version']).toBe('5.2');
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      thirdPartyId: 'google',
      thirdPartyUserId: 'g',
      email: { id: 'e@x.y', isVerified: false },
    });
  });
});

describe('raw', () => {
  it('sends any request with the same headers, prefix, query and rid, and returns the text', async () => {
    const { server, client } = await setup(() => ({ status: 200, body: 'anything' }), { appId: 'a', tenantId: 't' });
    const res = await client.raw({
      method: 'DELETE',
      path: '/x/y',
      scope: 'tenant',
      query: { a: 'b c', skip: undefined },
      body: { k: 1 },
      rid: 'thirdparty',
    });
    expect(res).toMatchObject({ status: 200, text: 'anything\n' });
    expect(res.contentType).toMatch(/text\/html/);
    const r = server.requests[0]!;
    expect(`${r.method} ${r.url}`).toBe('DELETE /appid-a/t/x/y?a=b%20c');
    expect(r.headers).toMatchObject({ rid: 'thirdparty', 'api-key': KEY, 'cdi-version': '5.4' });
    expect(r.body).toBe('{"k":1}');
  });

  it('masks the api-key if a core ever echoes it in an error text', async () => {
    const { client } = await setup(() => ({ status: 400, body: `bad header api-key=${KEY}` }));
    const err = await client.getUserById('u').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreHttpError);
    expect((err as Error).message).not.toContain(KEY);
    expect((err as CoreHttpError).body).toBe('bad header api-key=***');
  });
});

describe('business statuses are values', () => {
  it.each([
    ['DEVICE_ALREADY_EXISTS_ERROR', {}],
    ['USER_ID_MAPPING_ALREADY_EXISTS_ERROR', { doesSuperTokensUserIdExist: true, doesExternalUserIdExist: true }],
  ])('returns %s without retrying', async (status, extra) => {
    const { server, client } = await setup(() => okJson({ status, ...extra }));
    const res = await client.importTotpDevice({ userId: 'u', secretKey: 'S', period: 30, skew: 1 });
    expect(res).toEqual({ status, ...extra });
    expect(server.requests).toHaveLength(1);
  });

  it('a 200 that is not JSON with a status is a protocol error', async () => {
    const { client } = await setup(() => ({ status: 200, body: 'Hello' }));
    await expect(client.getUserById('u')).rejects.toBeInstanceOf(CoreProtocolError);
  });
});

describe('retries', () => {
  it('retries 503 and dropped connections with backoff, reporting each retry', async () => {
    const retries: RetryInfo[] = [];
    const { server, client } = await setup(
      (_r, i) =>
        i === 0 ? { status: 503, body: 'busy' } : i === 1 ? { destroy: true } : okJson({ status: 'OK', wasAlreadyAPrimaryUser: false }),
      { onRetry: (info) => retries.push(info) },
    );
    const res = await client.createPrimaryUser('r1');
    expect(res.status).toBe('OK');
    expect(server.requests).toHaveLength(3);
    expect(retries.map((r) => [r.attempt, r.method, r.path])).toEqual([
      [1, 'POST', '/recipe/accountlinking/user/primary'],
      [2, 'POST', '/recipe/accountlinking/user/primary'],
    ]);
    expect(retries[0]!.reason).toBe('HTTP 503');
    expect(retries[1]!.reason).toMatch(/ECONNRESET|socket hang up/);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(FAST.maxDelayMs);
  });

  it('honours Retry-After in seconds on 429', async () => {
    const { server, client } = await setup((_r, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' } : okJson({ status: 'OK' }),
    );
    await client.signIn('a@b.c', 'x');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const until = new Date(Date.now() + 1500).toUTCString();
    const { server, client } = await setup((_r, i) =>
      i === 0 ? { status: 503, headers: { 'retry-after': until }, body: 'x' } : okJson({ status: 'OK' }),
    );
    await client.signIn('a@b.c', 'x');
    expect(server.requests[1]!.at).toBeGreaterThanOrEqual(Date.parse(until));
  });

  it('persistent 503 ends as CoreUnreachableError naming the URL after retries + 1 attempts', async () => {
    const { server, client } = await setup(() => ({ status: 503, body: 'down' }));
    const err = await client.listTotpDevices('u').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreUnreachableError);
    expect((err as Error).message).toContain(server.url);
    expect((err as Error).message).toContain('HTTP 503');
    expect(server.requests).toHaveLength(FAST.retries + 1);
  });

  it('persistent 500 ends as a non-fatal CoreHttpError with the core text', async () => {
    const { server, client } = await setup(() => ({ status: 500, body: 'java.lang.NullPointerException' }));
    const err = await client.getUserById('u').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreHttpError);
    expect(err).toMatchObject({ status: 500, fatal: false, body: 'java.lang.NullPointerException' });
    expect(server.requests).toHaveLength(FAST.retries + 1);
  });

  it('never retries a 400 and never quotes the request body', async () => {
    const hash = '$2a$10$SECRETHASHVALUEABCDEFGHIJKLMNOPQRSTUV';
    const { server, client } = await setup(() => ({ status: 400, body: 'Password hash is in invalid BCrypt format' }));
    const err = await client.importPasswordHash({ email: 'a@b.c', passwordHash: hash }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreHttpError);
    expect(err).toMatchObject({
      status: 400,
      method: 'POST',
      path: '/recipe/user/passwordhash/import',
      body: 'Password hash is in invalid BCrypt format',
      fatal: false,
    });
    expect((err as Error).message).not.toContain(hash);
    expect((err as Error).message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('an unknown tenant (400) or a 403 is fatal, not retried', async () => {
    const { server, client } = await setup(() => ({ status: 403, body: 'Only public tenantId can call this app specific API' }));
    await expect(client.createPrimaryUser('r')).rejects.toMatchObject({ status: 403, fatal: true });
    expect(server.requests).toHaveLength(1);
  });

  it('the missing signer key 500 is a CoreConfigError at once, not retried', async () => {
    const body = "java.lang.IllegalStateException: 'firebase_password_hashing_signer_key' cannot be null";
    const { server, client } = await setup(() => ({ status: 500, body }));
    const err = await client.importPasswordHash({ email: 'a@b.c', passwordHash: '$f_scrypt$x$y$m=14$r=8$s=Bw==' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreConfigError);
    expect((err as Error).message).toMatch(/signer key/);
    expect(server.requests).toHaveLength(1);
  });

  it('a closed port ends as CoreUnreachableError after the retries', async () => {
    const port = await freePort();
    const retries: RetryInfo[] = [];
    client = createCoreClient({ url: `http://127.0.0.1:${port}/base`, apiKey: KEY, retry: FAST, onRetry: (i) => retries.push(i) });
    const err = await client.hello().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreUnreachableError);
    expect((err as Error).message).toContain(`http://127.0.0.1:${port}/base`);
    expect(retries.map((r) => r.reason)).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('times out an attempt that gets no answer, and retries it', async () => {
    const { server, client } = await setup(() => ({ hang: true }), {
      timeoutMs: 150,
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const started = Date.now();
    const err = await client.getUserById('u').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreUnreachableError);
    expect((err as Error).message).toContain('timeout after 150 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(server.requests).toHaveLength(2);
  });
});

describe('timeouts and queueing', () => {
  it('the timeout counts from getting a socket, not time queued behind other requests', async () => {
    const { server, client } = await setup(() => ({ delayMs: 100, body: { status: 'OK' } }), {
      maxSockets: 1,
      timeoutMs: 500,
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    // Eight requests on one socket take ~800 ms in all; each one alone takes ~100 ms.
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => client.getUserById(`u${i}`)));
    expect(results.every((r) => r.status === 'OK')).toBe(true);
    expect(server.connections).toBe(1);
    expect(server.requests.at(-1)!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(600);
  });
});

describe('401 and 402', () => {
  it('401 is a CoreAuthError that names the api-key, not its value, and is not retried', async () => {
    const { server, client } = await setup(() => ({ status: 401, body: 'Invalid API key' }));
    const err = await client.importTotpDevice({ userId: 'u', secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreAuthError);
    expect((err as CoreAuthError).fatal).toBe(true);
    expect((err as Error).message).toMatch(/api-key/);
    expect((err as Error).message).toMatch(/wrong/);
    expect((err as Error).message).toMatch(/--api-key|AUTH_MIGRATE_API_KEY/);
    expect((err as Error).message).not.toContain(KEY);
    expect((err as Error).message).not.toContain('JBSWY3DPEHPK3PXP');
    expect(server.requests).toHaveLength(1);
  });

  it('401 without a key says that none was given', async () => {
    server = await startCaptureServer(() => ({ status: 401, body: 'Invalid API key' }));
    client = createCoreClient({ url: server.url, retry: FAST });
    await expect(client.apiVersion()).rejects.toThrow(/none was given/);
  });

  it.each([
    ['MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.', 'mfa', /TOTP/],
    ['Account linking feature is not enabled for this app. Please contact support to enable it.', 'account_linking', /account linking/],
  ])('402 "%s" names the feature and says to set a licence key', async (body, feature, words) => {
    const { server, client } = await setup(() => ({ status: 402, body }));
    const err = await client.linkAccounts('r', 'p').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreLicenseError);
    expect((err as CoreLicenseError).feature).toBe(feature);
    expect((err as Error).message).toMatch(words);
    expect((err as Error).message).toMatch(/licen[cs]e key/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('keep-alive', () => {
  it('reuses one connection for sequential requests', async () => {
    const { server, client } = await setup();
    for (let i = 0; i < 50; i++) await client.getUserById(`u${i}`);
    expect(server.requests).toHaveLength(50);
    // undici's Pool opens a second socket for a request sent while the first socket is still being set up.
    expect(server.connections).toBeLessThanOrEqual(2);
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });

  it('opens at most maxSockets connections under concurrency and reuses them', async () => {
    const { server, client } = await setup(undefined, { maxSockets: 8 });
    for (let round = 0; round < 4; round++) {
      await Promise.all(Array.from({ length: 32 }, (_, i) => client.getUserById(`u${i}`)));
    }
    expect(server.requests).toHaveLength(128);
    expect(server.connections).toBeLessThanOrEqual(8);
  });

  it('uses a caller-supplied dispatcher and leaves it open on close()', async () => {
    const { server } = await setup(undefined);
    const pool = new Pool(new URL(server.url).origin, { connections: 1 });
    const c2 = createCoreClient({ url: server.url, dispatcher: pool });
    await c2.getUserById('x');
    c2.close();
    // The pooled socket survived close(): a new client on the same pool reuses it.
    await createCoreClient({ url: server.url, dispatcher: pool }).getUserById('y');
    expect(server.requests).toHaveLength(2);
    expect(server.connections).toBe(1);
    await pool.destroy();
  });
});

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
