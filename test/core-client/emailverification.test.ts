// The email verification methods of the client against the REAL sandbox: the union results, external ids,
// the tenant prefix of the tenant-specific calls, and the app-wide isEmailVerified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient, type CoreClient } from '../../src/core-client/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';

const KEY = 'sandbox-client-ev-test-key-0123456789';
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let sb: RunningSandbox;
let core: CoreClient;

beforeAll(async () => {
  sb = await startSandbox({ apiKeys: [KEY], licenseKey: 'sandbox-client-ev-licence' });
  core = createCoreClient({ url: sb.url, apiKey: KEY, retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 } });
});
afterAll(async () => {
  core?.close();
  await sb?.stop();
});

describe('email verification through the client', () => {
  it('token, consume, isEmailVerified, already verified, invalid token', async () => {
    const imported = await core.importPasswordHash({ email: 'Ev@Example.com', passwordHash: BCRYPT });
    const userId = imported.user.id;
    expect(await core.isEmailVerified(userId, 'ev@example.com')).toEqual({ status: 'OK', isVerified: false });
    const t = await core.createEmailVerificationToken(userId, 'Ev@Example.com');
    if (t.status !== 'OK') throw new Error(`expected a token, got ${t.status}`);
    expect(t.token.length).toBeGreaterThan(20);
    expect(await core.verifyEmailToken(t.token)).toEqual({ status: 'OK', userId, email: 'ev@example.com' });
    expect(await core.verifyEmailToken(t.token)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await core.isEmailVerified(userId, 'ev@example.com')).toEqual({ status: 'OK', isVerified: true });
    expect(await core.createEmailVerificationToken(userId, 'ev@example.com')).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
    const user = await core.getUserById(userId);
    expect(user.status === 'OK' && user.user.loginMethods[0]!.verified).toBe(true);
  });

  it('external ids are taken as given', async () => {
    const imported = await core.importPasswordHash({ email: 'mapped@example.com', passwordHash: BCRYPT });
    expect((await core.createUserIdMapping({ superTokensUserId: imported.user.id, externalUserId: 'ext-client-ev' })).status).toBe('OK');
    const t = await core.createEmailVerificationToken('ext-client-ev', 'mapped@example.com');
    if (t.status !== 'OK') throw new Error(t.status);
    expect(await core.verifyEmailToken(t.token)).toEqual({ status: 'OK', userId: 'ext-client-ev', email: 'mapped@example.com' });
    const user = await core.getUserById('ext-client-ev');
    expect(user.status === 'OK' && user.user.loginMethods[0]).toMatchObject({ recipeUserId: 'ext-client-ev', verified: true });
  });

  it('a tenant client sends the token calls under its tenant; the check is app-wide', async () => {
    const made = await core.raw({
      method: 'PUT',
      path: '/recipe/multitenancy/tenant/v2',
      scope: 'app',
      body: { tenantId: 'evt', firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'] },
    });
    expect(made.status).toBe(200);
    const tenant = core.forTenant('evt');
    const imported = await tenant.importPasswordHash({ email: 'tenant@example.com', passwordHash: BCRYPT });
    const t = await tenant.createEmailVerificationToken(imported.user.id, 'tenant@example.com');
    if (t.status !== 'OK') throw new Error(t.status);
    // The public tenant does not know this tenant's token.
    expect(await core.verifyEmailToken(t.token)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect((await tenant.verifyEmailToken(t.token)).status).toBe('OK');
    expect(await tenant.isEmailVerified(imported.user.id, 'tenant@example.com')).toEqual({ status: 'OK', isVerified: true });
  });
});
