// Email verification on a real sandbox: token create/consume (single use, all tokens of the user spent,
// expiry via the clock hook), the user object's `verified`, external ids, tenants, the 400 texts, unverify
// and revoke, and that the store keeps only token hashes.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { BCRYPT, LICENSE, advanceClock, client, errorText, startTestSandbox } from '../support/sandbox.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startTestSandbox({ licenseKey: LICENSE });
  api = client(sb);
  expect(
    (
      await api.put('/recipe/multitenancy/tenant/v2', {
        tenantId: 't1',
        firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'],
      })
    ).json.status,
  ).toBe('OK');
});
afterAll(async () => {
  await sb?.stop();
});

const importEp = async (email: string, prefix = '') => {
  const a = await api.post(`${prefix}/recipe/user/passwordhash/import`, { email, passwordHash: BCRYPT });
  expect(a.json.status).toBe('OK');
  return a.json.user as { id: string; loginMethods: Array<{ verified: boolean; recipeUserId: string }> };
};
const createToken = (userId: string, email: string, prefix = '') => api.post(`${prefix}/recipe/user/email/verify/token`, { userId, email });
const consume = (token: string, prefix = '') => api.post(`${prefix}/recipe/user/email/verify`, { method: 'token', token });
const isVerified = async (userId: string, email: string) =>
  (await api.get(`/recipe/user/email/verify?userId=${encodeURIComponent(userId)}&email=${encodeURIComponent(email)}`)).json;
const verifiedOf = async (userId: string) =>
  (await api.get(`/user/id?userId=${encodeURIComponent(userId)}`)).json.user.loginMethods[0].verified;

describe('email verification tokens', () => {
  it('create then consume marks the email verified; the token is single-use; a second create says already verified', async () => {
    const user = await importEp('ev1@x.io');
    expect(user.loginMethods[0]!.verified).toBe(false);
    expect(await isVerified(user.id, 'ev1@x.io')).toEqual({ status: 'OK', isVerified: false });
    const t = await createToken(user.id, ' EV1@X.io ');
    expect(t.json.status).toBe('OK');
    expect(t.json.token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect((await consume(t.json.token)).json).toEqual({ status: 'OK', userId: user.id, email: 'ev1@x.io' });
    expect(await verifiedOf(user.id)).toBe(true);
    expect(await isVerified(user.id, 'ev1@x.io')).toEqual({ status: 'OK', isVerified: true });
    expect((await consume(t.json.token)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect((await createToken(user.id, 'ev1@x.io')).json).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
  });

  it('consuming one token spends every token of that user and email', async () => {
    const user = await importEp('ev2@x.io');
    const a = (await createToken(user.id, 'ev2@x.io')).json.token as string;
    const b = (await createToken(user.id, 'ev2@x.io')).json.token as string;
    expect(a).not.toBe(b);
    expect((await consume(b)).json.status).toBe('OK');
    expect((await consume(a)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
  });

  it('a token made for the external id verifies the mapped user; isVerified reads exactly the id given', async () => {
    const user = await importEp('ev3@x.io');
    expect((await api.post('/recipe/userid/map', { superTokensUserId: user.id, externalUserId: 'ext-ev3' })).json.status).toBe('OK');
    expect(await verifiedOf('ext-ev3')).toBe(false);
    const t = await createToken('ext-ev3', 'ev3@x.io');
    expect((await consume(t.json.token)).json).toEqual({ status: 'OK', userId: 'ext-ev3', email: 'ev3@x.io' });
    expect(await verifiedOf('ext-ev3')).toBe(true);
    expect(await verifiedOf(user.id)).toBe(true);
    expect(await isVerified('ext-ev3', 'ev3@x.io')).toEqual({ status: 'OK', isVerified: true });
    // The reference core's isEmailVerified matches (app, userId, email) as given.
    expect(await isVerified(user.id, 'ev3@x.io')).toEqual({ status: 'OK', isVerified: false });
    expect((await createToken('ext-ev3', 'ev3@x.io')).json).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
  });

  it('a mapping moves the verification to the external id (CDI >= 4.0), as the reference core does', async () => {
    const user = await importEp('ev8@stfakeemail.supertokens.com');
    expect(user.loginMethods[0]!.verified).toBe(true);
    expect(await isVerified(user.id, 'ev8@stfakeemail.supertokens.com')).toEqual({ status: 'OK', isVerified: true });
    expect((await api.post('/recipe/userid/map', { superTokensUserId: user.id, externalUserId: 'ext-ev8' })).json.status).toBe('OK');
    expect(await isVerified('ext-ev8', 'ev8@stfakeemail.supertokens.com')).toEqual({ status: 'OK', isVerified: true });
    expect(await isVerified(user.id, 'ev8@stfakeemail.supertokens.com')).toEqual({ status: 'OK', isVerified: false });
    expect(await verifiedOf('ext-ev8')).toBe(true);
    expect((await createToken('ext-ev8', 'ev8@stfakeemail.supertokens.com')).json).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
  });

  it('the user need not exist; verification is per email', async () => {
    const t = await createToken('nobody', 'n@x.io');
    expect(t.json.status).toBe('OK');
    expect((await consume(t.json.token)).json).toEqual({ status: 'OK', userId: 'nobody', email: 'n@x.io' });
    expect(await isVerified('nobody', 'other@x.io')).toEqual({ status: 'OK', isVerified: false });
  });

  it('tokens belong to their tenant; verification is app-wide', async () => {
    const user = await importEp('ev4@x.io', '/t1');
    const t = await createToken(user.id, 'ev4@x.io', '/t1');
    expect((await consume(t.json.token)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect((await consume(t.json.token, '/t1')).json).toEqual({ status: 'OK', userId: user.id, email: 'ev4@x.io' });
    expect(await isVerified(user.id, 'ev4@x.io')).toEqual({ status: 'OK', isVerified: true });
  });

  it('unverify and token revocation', async () => {
    const user = await importEp('ev5@x.io');
    const t1 = (await createToken(user.id, 'ev5@x.io')).json.token as string;
    expect((await api.post('/recipe/user/email/verify/token/remove', { userId: user.id, email: 'EV5@x.io' })).json).toEqual({
      status: 'OK',
    });
    expect((await consume(t1)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    const t2 = (await createToken(user.id, 'ev5@x.io')).json.token as string;
    expect((await consume(t2)).json.status).toBe('OK');
    expect((await api.post('/recipe/user/email/verify/remove', { userId: user.id, email: 'ev5@x.io' })).json).toEqual({ status: 'OK' });
    expect(await verifiedOf(user.id)).toBe(false);
    expect((await api.post('/recipe/user/email/verify/remove', { userId: user.id, email: 'ev5@x.io' })).json).toEqual({ status: 'OK' });
  });

  it('400 texts, unknown tenant, and the app-specific GET on a tenant', async () => {
    expect((await api.post('/recipe/user/email/verify/token', { email: 'a@x.io' })).text).toBe(
      errorText("Field name 'userId' is invalid in JSON input"),
    );
    expect((await api.post('/recipe/user/email/verify/token', { userId: 'u', email: 1 })).text).toBe(
      errorText("Field name 'email' is invalid in JSON input"),
    );
    expect((await api.post('/recipe/user/email/verify', { method: 'token' })).text).toBe(
      errorText("Field name 'token' is invalid in JSON input"),
    );
    const wrongMethod = await api.post('/recipe/user/email/verify', { method: 'link', token: 'x' });
    expect([wrongMethod.status, wrongMethod.text]).toEqual([400, errorText('Unsupported method for email verification')]);
    expect((await api.get('/recipe/user/email/verify?userId=u')).text).toBe(errorText("Field name 'email' is missing in GET request"));
    expect((await api.post('/nope/recipe/user/email/verify/token', { userId: 'u', email: 'a@x.io' })).status).toBe(400);
    const onTenant = await api.get('/t1/recipe/user/email/verify?userId=u&email=a@x.io');
    expect([onTenant.status, onTenant.text]).toEqual([403, errorText('Only public tenantId can call this app specific API')]);
    expect((await api.post('/t1/recipe/user/email/verify/remove', { userId: 'u', email: 'a@x.io' })).status).toBe(403);
    expect((await api.del('/recipe/user/email/verify/token')).status).toBe(405);
  });

  it('the store holds token hashes, never the token', async () => {
    const user = await importEp('ev6@x.io');
    const token = (await createToken(user.id, 'ev6@x.io')).json.token as string;
    // Answers wait for their writes: whatever is on disk now (snapshot and log) must not hold the token.
    const dir = dirname(sb.storePath);
    let all = '';
    for (const f of await readdir(dir)) all += await readFile(join(dir, f), 'utf8');
    expect(all).toContain('ev6@x.io');
    expect(all).not.toContain(token);
  });

  // Last: it moves the clock of this sandbox by a day.
  it('an expired token is refused and spent', async () => {
    const user = await importEp('ev7@x.io');
    const token = (await createToken(user.id, 'ev7@x.io')).json.token as string;
    await advanceClock(sb, 86_400_000 + 1000);
    expect((await consume(token)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await verifiedOf(user.id)).toBe(false);
    const fresh = (await createToken(user.id, 'ev7@x.io')).json.token as string;
    expect((await consume(fresh)).json.status).toBe('OK');
  });
});
