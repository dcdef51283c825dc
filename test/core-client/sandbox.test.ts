// The client against the REAL sandbox core on a real port: every endpoint a migration and its verification use,
// the typed 401/402/config errors, tenants, a core restart under retries, and faults absorbed by idempotency.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCoreClient,
  CoreAuthError,
  CoreConfigError,
  CoreHttpError,
  CoreLicenseError,
  type CoreClient,
} from '../../src/core-client/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startFaultProxy } from '../support/fault-proxy.js';

const KEY = 'sandbox-client-test-key-0123456789';
const LICENSE = 'sandbox-client-test-licence';
const FAST = { retries: 3, baseDelayMs: 5, maxDelayMs: 50 };
const BASE32_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** RFC 6238 (HMAC-SHA1, 6 digits), independent of the code under test. */
function totpNow(base32: string, period = 30, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of base32.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / period)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(code).padStart(6, '0');
}

let licensed: RunningSandbox;
let core: CoreClient;
beforeAll(async () => {
  licensed = await startSandbox({ apiKeys: [KEY], licenseKey: LICENSE });
  core = createCoreClient({ url: licensed.url, apiKey: KEY, retry: FAST });
});
afterAll(async () => {
  core?.close();
  await licensed?.stop();
});

describe('against a licensed sandbox', () => {
  it('speaks to hello, apiversion, featureflag and licence', async () => {
    expect(await core.hello()).toMatch(/Hello/);
    expect((await core.apiVersion()).versions).toContain('5.4');
    const flags = await core.featureFlags();
    expect(flags.status).toBe('OK');
    expect(flags.features).toEqual(expect.arrayContaining(['mfa', 'account_linking']));
    expect((await core.getLicense()).status).toBe('OK');
  });

  it('imports a password hash idempotently and signs in with it', async () => {
    const hash = bcrypt.hashSync('correct horse', 4);
    const first = await core.importPasswordHash({ email: 'Alice@Example.com', passwordHash: hash, hashingAlgorithm: 'bcrypt' });
    expect(first.status).toBe('OK');
    expect(first.didUserAlreadyExist).toBe(false);
    expect(first.user.emails).toEqual(['alice@example.com']);
    expect(first.user.loginMethods[0]).toMatchObject({ recipeId: 'emailpassword', email: 'alice@example.com' });
    const again = await core.importPasswordHash({ email: 'alice@example.com', passwordHash: hash });
    expect(again).toMatchObject({ status: 'OK', didUserAlreadyExist: true });
    const ok = await core.signIn('alice@example.com', 'correct horse');
    expect(ok.status).toBe('OK');
    if (ok.status === 'OK') expect(ok.recipeUserId).toBe(first.user.id);
    expect(await core.signIn('alice@example.com', 'wrong')).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('a bad hash is a non-fatal CoreHttpError carrying the core text', async () => {
    const err = await core.importPasswordHash({ email: 'bad@example.com', passwordHash: 'not-a-hash' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreHttpError);
    expect(err).toMatchObject({ status: 400, body: 'Password hash is in invalid format', fatal: false });
  });

  it('third party, passwordless, primary, link, mapping and TOTP: a whole user, twice', async () => {
    const ep = await core.importPasswordHash({ email: 'bob@example.com', passwordHash: bcrypt.hashSync('pw-bob', 4) });
    const tp = await core.thirdPartySignInUp({
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-bob',
      email: { id: 'bob@example.com', isVerified: true },
    });
    expect(tp).toMatchObject({ status: 'OK', createdNewUser: true });
    if (tp.status !== 'OK') throw new Error('unreachable');
    expect(
      await core.thirdPartySignInUp({
        thirdPartyId: 'google',
        thirdPartyUserId: 'g-bob',
        email: { id: 'bob@example.com', isVerified: true },
      }),
    ).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: tp.recipeUserId });

    const code = await core.createCode({ phoneNumber: '+14155550101' });
    if (code.status !== 'OK') throw new Error(`createCode: ${code.status}`);
    const consumed = await core.consumeCode({
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    if (consumed.status !== 'OK') throw new Error(`consumeCode: ${consumed.status}`);
    expect(consumed.createdNewUser).toBe(true);
    expect(consumed.user.phoneNumbers).toEqual(['+14155550101']);
    expect(await core.updatePasswordlessUser({ recipeUserId: consumed.recipeUserId, email: 'bob@example.com' })).toEqual({ status: 'OK' });
    const wrong = await core.consumeCode({
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    expect(wrong.status).toBe('RESTART_FLOW_ERROR');

    const primary = await core.createPrimaryUser(ep.user.id);
    expect(primary).toMatchObject({ status: 'OK', wasAlreadyAPrimaryUser: false });
    expect(await core.createPrimaryUser(ep.user.id)).toMatchObject({ status: 'OK', wasAlreadyAPrimaryUser: true });
    expect(await core.linkAccounts(tp.recipeUserId, ep.user.id)).toMatchObject({ status: 'OK', accountsAlreadyLinked: false });
    expect(await core.linkAccounts(tp.recipeUserId, ep.user.id)).toMatchObject({ status: 'OK', accountsAlreadyLinked: true });
    expect(await core.linkAccounts(consumed.recipeUserId, ep.user.id)).toMatchObject({ status: 'OK', accountsAlreadyLinked: false });

    expect(await core.createUserIdMapping({ superTokensUserId: ep.user.id, externalUserId: 'ext-bob' })).toEqual({ status: 'OK' });
    expect(await core.createUserIdMapping({ superTokensUserId: ep.user.id, externalUserId: 'ext-bob' })).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: true,
      doesExternalUserIdExist: true,
    });
    expect(await core.getUserIdMapping('ext-bob', 'EXTERNAL')).toMatchObject({
      status: 'OK',
      superTokensUserId: ep.user.id,
      externalUserId: 'ext-bob',
    });
    expect((await core.getUserIdMapping('nobody')).status).toBe('UNKNOWN_MAPPING_ERROR');

    const byId = await core.getUserById('ext-bob');
    if (byId.status !== 'OK') throw new Error(byId.status);
    expect(byId.user).toMatchObject({ id: 'ext-bob', isPrimaryUser: true });
    expect(byId.user.loginMethods.map((m) => m.recipeId).sort()).toEqual(['emailpassword', 'passwordless', 'thirdparty']);

    const dev = await core.importTotpDevice({ userId: 'ext-bob', deviceName: 'phone', secretKey: BASE32_SECRET, period: 30, skew: 1 });
    expect(dev).toEqual({ status: 'OK', deviceName: 'phone' });
    expect(await core.importTotpDevice({ userId: 'ext-bob', deviceName: 'phone', secretKey: BASE32_SECRET, period: 30, skew: 1 })).toEqual({
      status: 'DEVICE_ALREADY_EXISTS_ERROR',
    });
    expect(await core.listTotpDevices('ext-bob')).toEqual({
      status: 'OK',
      devices: [{ name: 'phone', period: 30, skew: 1, verified: true }],
    });
    expect(await core.verifyTotpDevice({ userId: 'ext-bob', deviceName: 'phone', totp: '000000' })).toEqual({
      status: 'OK',
      wasAlreadyVerified: true,
    });
    expect(await core.verifyTotp('ext-bob', totpNow(BASE32_SECRET))).toEqual({ status: 'OK' });
    expect((await core.verifyTotp('nobody-with-devices', '123456')).status).toBe('UNKNOWN_USER_ID_ERROR');
    expect((await core.getUserById('no-such-user')).status).toBe('UNKNOWN_USER_ID_ERROR');
  });

  it('pages through users with the pagination token', async () => {
    for (let i = 0; i < 5; i++)
      await core.thirdPartySignInUp({
        thirdPartyId: 'github',
        thirdPartyUserId: `page-${i}`,
        email: { id: `page${i}@example.com`, isVerified: false },
      });
    const seen = new Set<string>();
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listUsers({ limit: 2, paginationToken: token, includeRecipeIds: ['thirdparty'] });
      for (const u of page.users) seen.add(u.id);
      token = page.nextPaginationToken;
      pages++;
    } while (token && pages < 50);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen.size).toBeGreaterThanOrEqual(5);
  });

  it('app and tenant prefixes reach separate data on the core', async () => {
    const app = createCoreClient({ url: licensed.url, apiKey: KEY, appId: 'app-one', retry: FAST });
    try {
      await core.raw({
        method: 'PUT',
        path: '/recipe/multitenancy/app/v2',
        scope: 'app',
        body: { appId: 'app-one', firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'] },
      });
      await app.raw({
        method: 'PUT',
        path: '/recipe/multitenancy/tenant/v2',
        scope: 'app',
        body: {
          tenantId: 'tenant-one',
          firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'],
        },
      });
      const t1 = app.forTenant('tenant-one');
      const inT1 = await t1.importPasswordHash({ email: 'carol@example.com', passwordHash: bcrypt.hashSync('pw-tenant', 4) });
      const inPublic = await core.importPasswordHash({ email: 'carol@example.com', passwordHash: bcrypt.hashSync('pw-public', 4) });
      expect(inT1.didUserAlreadyExist).toBe(false);
      expect(inPublic.didUserAlreadyExist).toBe(false);
      expect(inT1.user.id).not.toBe(inPublic.user.id);
      expect(inT1.user.tenantIds).toEqual(['tenant-one']);
      expect((await t1.signIn('carol@example.com', 'pw-tenant')).status).toBe('OK');
      expect((await core.signIn('carol@example.com', 'pw-tenant')).status).toBe('WRONG_CREDENTIALS_ERROR');
      expect((await app.signIn('carol@example.com', 'pw-tenant')).status).toBe('WRONG_CREDENTIALS_ERROR');
      // App-specific reads see the app's users whatever the tenant, and nothing of another app.
      expect((await t1.getUserById(inT1.user.id)).status).toBe('OK');
      expect((await app.getUserById(inT1.user.id)).status).toBe('OK');
      expect((await core.getUserById(inT1.user.id)).status).toBe('UNKNOWN_USER_ID_ERROR');
    } finally {
      app.close();
    }
  });

  it('an unknown tenant is a fatal 400 naming the tenant', async () => {
    const err = await core
      .forTenant('no-such-tenant')
      .signIn('a@b.c', 'x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreHttpError);
    expect(err).toMatchObject({ status: 400, fatal: true, path: '/no-such-tenant/recipe/signin' });
    expect((err as Error).message).toMatch(/AppId or tenantId not found/);
  });

  it('a wrong api-key is a CoreAuthError without either key in the message', async () => {
    const wrongKey = 'wrong-key-abcdefghijklmnopqrstuvwxyz';
    const bad = createCoreClient({ url: licensed.url, apiKey: wrongKey, retry: FAST });
    const err = await bad.getUserById('x').catch((e: unknown) => e);
    bad.close();
    expect(err).toBeInstanceOf(CoreAuthError);
    expect((err as Error).message).not.toContain(wrongKey);
    expect((err as Error).message).not.toContain(KEY);
  });
});

describe('against other sandboxes', () => {
  it('without a licence: TOTP import and linking are CoreLicenseErrors naming the feature', async () => {
    const sb = await startSandbox({ apiKeys: [KEY] });
    const c = createCoreClient({ url: sb.url, apiKey: KEY, retry: FAST });
    try {
      const totp = await c.importTotpDevice({ userId: 'u1', secretKey: BASE32_SECRET, period: 30, skew: 1 }).catch((e: unknown) => e);
      expect(totp).toBeInstanceOf(CoreLicenseError);
      expect(totp).toMatchObject({ feature: 'mfa', fatal: true });
      const ep = await c.importPasswordHash({ email: 'x@example.com', passwordHash: bcrypt.hashSync('x', 4) });
      const link = await c.createPrimaryUser(ep.user.id).catch((e: unknown) => e);
      expect(link).toBeInstanceOf(CoreLicenseError);
      expect(link).toMatchObject({ feature: 'account_linking' });
      expect((link as Error).message).toMatch(/licen[cs]e key/);
    } finally {
      c.close();
      await sb.stop();
    }
  });

  it('without a signer key: an external scrypt hash is a CoreConfigError at once (no retry)', async () => {
    const sb = await startSandbox({ apiKeys: [KEY], licenseKey: LICENSE });
    let retries = 0;
    const c = createCoreClient({ url: sb.url, apiKey: KEY, retry: FAST, onRetry: () => retries++ });
    try {
      const hash =
        '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
      const err = await c
        .importPasswordHash({ email: 's@example.com', passwordHash: hash, hashingAlgorithm: 'firebase_scrypt' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CoreConfigError);
      expect((err as Error).message).not.toContain(hash);
      expect(retries).toBe(0);
    } finally {
      c.close();
      await sb.stop();
    }
  });

  it('rides out a core killed and restarted on the same port and store', async () => {
    // Our own store file: an automatic temp store is deleted when its sandbox exits.
    const dir = mkdtempSync(join(tmpdir(), 'core-client-restart-'));
    const sb = await startSandbox({ apiKeys: [KEY], store: join(dir, 'store.json') });
    const retries: string[] = [];
    const c = createCoreClient({
      url: sb.url,
      apiKey: KEY,
      retry: { retries: 300, baseDelayMs: 20, maxDelayMs: 100 },
      onRetry: (i) => retries.push(i.reason),
    });
    let restarted: RunningSandbox | undefined;
    try {
      await c.thirdPartySignInUp({
        thirdPartyId: 'google',
        thirdPartyUserId: 'before',
        email: { id: 'before@example.com', isVerified: true },
      });
      sb.kill('SIGKILL');
      // Wait for the exit itself: under load a just-signalled process can still answer one more request.
      await sb.stop();
      const during = c.thirdPartySignInUp({
        thirdPartyId: 'google',
        thirdPartyUserId: 'during',
        email: { id: 'during@example.com', isVerified: true },
      });
      // Restart once the old process is gone (its port is free again).
      const deadline = Date.now() + 10_000;
      while (!restarted && Date.now() < deadline) {
        restarted = await startSandbox({ apiKeys: [KEY], port: sb.port, store: sb.storePath }).catch(() => undefined);
      }
      expect(restarted).toBeDefined();
      expect(await during).toMatchObject({ status: 'OK', createdNewUser: true });
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.filter((r) => !/ECONNREFUSED|ECONNRESET|EPIPE|socket hang up/.test(r))).toEqual([]);
      const before = await c.thirdPartySignInUp({
        thirdPartyId: 'google',
        thirdPartyUserId: 'before',
        email: { id: 'before@example.com', isVerified: true },
      });
      expect(before).toMatchObject({ status: 'OK', createdNewUser: false });
    } finally {
      c.close();
      await restarted?.stop();
      await sb.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('through a faulty proxy, idempotency absorbs repeated steps: every user exactly once', async () => {
    const proxy = await startFaultProxy({ target: licensed.url, faultRate: 0.25, seed: 11, retryAfter: '0' });
    const c = createCoreClient({ url: proxy.url, apiKey: KEY, retry: { retries: 12, baseDelayMs: 2, maxDelayMs: 20 } });
    try {
      const ids = Array.from({ length: 40 }, (_, i) => i);
      await Promise.all(
        ids.map(async (i) => {
          const ep = await c.importPasswordHash({
            email: `fault${i}@example.com`,
            passwordHash: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
          });
          const tp = await c.thirdPartySignInUp({
            thirdPartyId: 'google',
            thirdPartyUserId: `fault-${i}`,
            email: { id: `fault${i}@example.com`, isVerified: true },
          });
          const p = await c.createPrimaryUser(ep.user.id);
          expect(p.status).toBe('OK');
          if (tp.status !== 'OK') throw new Error(tp.status);
          expect((await c.linkAccounts(tp.recipeUserId, ep.user.id)).status).toBe('OK');
          expect(await c.createUserIdMapping({ superTokensUserId: ep.user.id, externalUserId: `fault-ext-${i}` })).toMatchObject({
            status: expect.stringMatching(/^(OK|USER_ID_MAPPING_ALREADY_EXISTS_ERROR)$/),
          });
        }),
      );
      expect(proxy.stats.faults['reset-after-forward']).toBeGreaterThan(0);
      for (const i of ids) {
        const u = await core.getUserById(`fault-ext-${i}`);
        if (u.status !== 'OK') throw new Error(`fault-ext-${i}: ${u.status}`);
        expect(u.user.isPrimaryUser).toBe(true);
        expect(u.user.loginMethods.map((m) => m.recipeId).sort()).toEqual(['emailpassword', 'thirdparty']);
      }
      // No duplicate anywhere: exactly 40 users hold a fault* email.
      let token: string | undefined;
      let holders = 0;
      do {
        const page = await core.listUsers({ limit: 500, paginationToken: token });
        holders += page.users.filter((u) => u.emails.some((e) => /^fault\d+@example\.com$/.test(e))).length;
        token = page.nextPaginationToken;
      } while (token);
      expect(holders).toBe(40);
      expect(await core.signIn('fault7@example.com', 'U*U')).toMatchObject({ status: 'OK' });
    } finally {
      c.close();
      await proxy.stop();
    }
  });
});
