// The remaining statuses of the reference core that the other sandbox suites do not reach: disabled login
// methods (403), email/phone conflicts on updates, mapping query errors, tenant management answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { BCRYPT, LICENSE, client, errorText, startTestSandbox } from '../support/sandbox.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startTestSandbox({ licenseKey: LICENSE });
  api = client(sb);
  await api.put('/recipe/multitenancy/tenant', {
    tenantId: 'closed',
    emailPasswordEnabled: false,
    thirdPartyEnabled: false,
    passwordlessEnabled: false,
  });
});
afterAll(async () => {
  await sb?.stop();
});

async function passwordlessUser(contact: Record<string, string>): Promise<string> {
  const c = await api.post('/recipe/signinup/code', contact);
  return (await api.post('/recipe/signinup/code/consume', { preAuthSessionId: c.json.preAuthSessionId, linkCode: c.json.linkCode })).json
    .user.id;
}

describe('more statuses', () => {
  it('403 for each login method disabled on the tenant', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/closed/recipe/signin', { email: 'a@x.io', password: 'x' }, 'Email password login not enabled for tenant'],
      [
        '/closed/recipe/signinup',
        { thirdPartyId: 'g', thirdPartyUserId: '1', email: { id: 'a@x.io', isVerified: true } },
        'ThirdParty login not enabled for tenant',
      ],
      ['/closed/recipe/signinup/code', { email: 'a@x.io' }, 'Passwordless login not enabled for tenant'],
    ];
    for (const [path, body, text] of cases) {
      const a = await api.post(path, body);
      expect([a.status, a.text]).toEqual([403, errorText(text)]);
    }
  });

  it('email-password update: EMAIL_ALREADY_EXISTS_ERROR and EMAIL_CHANGE_NOT_ALLOWED_ERROR', async () => {
    const a = (await api.post('/recipe/user/passwordhash/import', { email: 'upd-a@x.io', passwordHash: BCRYPT })).json.user.id;
    await api.post('/recipe/user/passwordhash/import', { email: 'upd-b@x.io', passwordHash: BCRYPT });
    expect((await api.put('/recipe/user', { recipeUserId: a, email: 'UPD-B@x.io' })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    const other = (
      await api.post('/recipe/signinup', { thirdPartyId: 'g', thirdPartyUserId: 'upd', email: { id: 'taken@x.io', isVerified: true } })
    ).json.user.id;
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: other });
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: a });
    expect((await api.put('/recipe/user', { recipeUserId: a, email: 'taken@x.io' })).json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New email is associated with another primary user ID',
    });
    expect((await api.put('/recipe/user', { recipeUserId: a, email: 'free@x.io' })).json).toEqual({ status: 'OK' });
    expect((await api.get(`/user/id?userId=${a}`)).json.user.emails).toEqual(['free@x.io']);
  });

  it('passwordless update: phone taken, and changes onto another primary user info refused', async () => {
    const p1 = await passwordlessUser({ phoneNumber: '+15550000001' });
    await passwordlessUser({ phoneNumber: '+15550000002' });
    const rid = { rid: 'passwordless' };
    expect((await api.put('/recipe/user', { recipeUserId: p1, phoneNumber: '+15550000002' }, rid)).json).toEqual({
      status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
    });
    const holder = (await api.post('/recipe/user/passwordhash/import', { email: 'holder@x.io', passwordHash: BCRYPT })).json.user.id;
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: holder });
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: p1 });
    expect((await api.put('/recipe/user', { recipeUserId: p1, email: 'holder@x.io' }, rid)).json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New email is associated with another primary user ID',
    });
  });

  it('mapping query errors, user lookup by linked id, tenant management answers', async () => {
    expect((await api.get('/recipe/userid/map')).text).toBe(errorText("Field name 'userId' is missing in GET request"));
    expect((await api.get('/recipe/userid/map?userId=x&userIdType=OTHER')).text).toBe(
      errorText("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'"),
    );
    expect((await api.post('/recipe/userid/map', { superTokensUserId: 'a', externalUserId: 'b', externalUserIdInfo: '' })).text).toBe(
      errorText("Field name 'externalUserIdInfo' cannot be an empty String"),
    );
    expect((await api.get('/recipe/multitenancy/tenant/v2')).json).toMatchObject({ status: 'OK', tenantId: 'public' });
    // TenantConfig.toJson_v2_5_1: no *Enabled flags; a tenant with every recipe disabled lists no first factor.
    expect((await api.get('/closed/recipe/multitenancy/tenant/v2')).json).toEqual({
      status: 'OK',
      tenantId: 'closed',
      thirdParty: { providers: [] },
      firstFactors: [],
      coreConfig: {},
    });
    expect((await api.get('/closed/recipe/multitenancy/tenant')).json).toMatchObject({
      status: 'OK',
      tenantId: 'closed',
      emailPassword: { enabled: false },
    });
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'x', emailPasswordEnabled: true })).text).toBe(
      errorText('emailPasswordEnabled is not allowed in this API version'),
    );
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'recipe' })).status).toBe(400);
    expect((await api.put('/closed/recipe/multitenancy/tenant/v2', { tenantId: 'y' })).status).toBe(403);
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'ghost' })).json).toEqual({ status: 'OK', didExist: false });
    expect((await api.post('/recipe/multitenancy/app/remove', { appId: 'ghost' })).json).toEqual({ status: 'OK', didExist: false });
    const count = await api.get('/users/count');
    expect(count.json.status).toBe('OK');
    expect(count.json.count).toBeGreaterThan(0);
  });

  it('a licence-free core refuses TOTP device creation with 402', async () => {
    await api.del('/ee/license');
    const a = await api.post('/recipe/totp/device', { userId: 'u', skew: 1, period: 30 });
    expect(a.status).toBe(402);
    await api.put('/ee/license', { licenseKey: LICENSE });
  });
});
