// Third party, account linking (with its conflicts), user id mapping, /user/id, /users pagination, and
// tenants/apps kept apart, on a real licensed sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { BCRYPT, LICENSE, client, errorText, startTestSandbox } from '../support/sandbox.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startTestSandbox({ licenseKey: LICENSE });
  api = client(sb);
  // Tenants and an app, created the way a rehearsal does it.
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 't1' })).json).toEqual({ status: 'OK', createdNew: true });
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 't1', firstFactors: ['emailpassword'] })).json).toEqual({
    status: 'OK',
    createdNew: false,
  });
  expect((await api.put('/recipe/multitenancy/tenant', { tenantId: 'noep', emailPasswordEnabled: false })).json).toEqual({
    status: 'OK',
    createdNew: true,
  });
  expect(
    (
      await api.put('/recipe/multitenancy/app/v2', {
        appId: 'a1',
        firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'],
      })
    ).json,
  ).toEqual({ status: 'OK', createdNew: true });
});
afterAll(async () => {
  await sb?.stop();
});

const importEp = async (email: string, prefix = '') =>
  (await api.post(`${prefix}/recipe/user/passwordhash/import`, { email, passwordHash: BCRYPT })).json.user;
const tp = (body: Record<string, unknown>, prefix = '') => api.post(`${prefix}/recipe/signinup`, body);

describe('third party sign-in-up', () => {
  it('creates, signs in, updates the email, marks verified', async () => {
    const first = await tp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'G1@x.io', isVerified: false } });
    expect(first.json).toMatchObject({ status: 'OK', createdNewUser: true });
    expect(first.json.user.thirdParty).toEqual([{ id: 'google', userId: 'g-1' }]);
    expect(first.json.user.loginMethods[0]).toMatchObject({
      recipeId: 'thirdparty',
      verified: false,
      email: 'g1@x.io',
      thirdParty: { id: 'google', userId: 'g-1' },
    });
    const again = await tp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'g1-new@x.io', isVerified: true } });
    expect(again.json).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: first.json.user.id });
    expect(again.json.user.loginMethods[0]).toMatchObject({ email: 'g1-new@x.io', verified: true });
  });

  it('400 texts for missing fields', async () => {
    expect((await tp({ thirdPartyUserId: 'x', email: { id: 'a', isVerified: true } })).text).toBe(
      errorText("Field name 'thirdPartyId' is invalid in JSON input"),
    );
    expect((await tp({ thirdPartyId: 'g', thirdPartyUserId: 'x' })).text).toBe(errorText("Field name 'email' is invalid in JSON input"));
    expect((await tp({ thirdPartyId: 'g', thirdPartyUserId: 'x', email: { isVerified: true } })).text).toBe(
      errorText("Field name 'id' is invalid in JSON input"),
    );
    expect((await tp({ thirdPartyId: 'g', thirdPartyUserId: 'x', email: { id: 'a@x.io' } })).text).toBe(
      errorText("Field name 'isVerified' is invalid in JSON input"),
    );
  });
});

describe('account linking', () => {
  it('primary, link, idempotence, the primary user returned for linked ids', async () => {
    const ep = await importEp('link@x.io');
    const social = (await tp({ thirdPartyId: 'github', thirdPartyUserId: 'gh-9', email: { id: 'link@x.io', isVerified: true } })).json.user;
    const p = await api.post('/recipe/accountlinking/user/primary', { recipeUserId: ep.id });
    expect(p.json).toMatchObject({ status: 'OK', wasAlreadyAPrimaryUser: false, user: { id: ep.id, isPrimaryUser: true } });
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: ep.id })).json.wasAlreadyAPrimaryUser).toBe(true);
    const l = await api.post('/recipe/accountlinking/user/link', { recipeUserId: social.id, primaryUserId: ep.id });
    expect(l.json).toMatchObject({ status: 'OK', accountsAlreadyLinked: false });
    expect(l.json.user.loginMethods.map((m: { recipeId: string }) => m.recipeId)).toEqual(['emailpassword', 'thirdparty']);
    expect(l.json.user).toMatchObject({ id: ep.id, emails: ['link@x.io'], thirdParty: [{ id: 'github', userId: 'gh-9' }] });
    expect(
      (await api.post('/recipe/accountlinking/user/link', { recipeUserId: social.id, primaryUserId: ep.id })).json.accountsAlreadyLinked,
    ).toBe(true);
    // Any id of the group gives the primary user.
    expect((await api.get(`/user/id?userId=${social.id}`)).json.user.id).toBe(ep.id);
    const signin = await api.post('/recipe/signin', { email: 'link@x.io', password: 'U*U' });
    expect(signin.json).toMatchObject({ status: 'OK', recipeUserId: ep.id, user: { id: ep.id, isPrimaryUser: true } });
    // A linked recipe user cannot become primary.
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: social.id })).json).toEqual({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
      primaryUserId: ep.id,
      description: 'This user ID is already linked to another user ID',
    });
  });

  it('conflicts: account info held by another primary user, already linked elsewhere, not a primary', async () => {
    const a = await importEp('same@x.io');
    const b = (await tp({ thirdPartyId: 'google', thirdPartyUserId: 'same', email: { id: 'same@x.io', isVerified: true } })).json.user;
    const c = (await tp({ thirdPartyId: 'google', thirdPartyUserId: 'other', email: { id: 'other@x.io', isVerified: true } })).json.user;
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: a.id })).json.status).toBe('OK');
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: b.id })).json).toEqual({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: a.id,
      description: "This user's email is already associated with another user ID",
    });
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: b.id, primaryUserId: c.id })).json).toEqual({
      status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER',
    });
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: c.id })).json.status).toBe('OK');
    // b carries a's email: linking it to c conflicts with a.
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: b.id, primaryUserId: c.id })).json).toMatchObject({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: a.id,
    });
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: b.id, primaryUserId: a.id })).json.status).toBe('OK');
    const other = await api.post('/recipe/accountlinking/user/link', { recipeUserId: b.id, primaryUserId: c.id });
    expect(other.json).toMatchObject({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: a.id,
      description: 'The input recipe user ID is already linked to another user ID',
      user: { id: a.id },
    });
    // An email change onto another primary user's email is refused for a linked user.
    const e = await api.post('/recipe/signinup', {
      thirdPartyId: 'google',
      thirdPartyUserId: 'same',
      email: { id: 'other@x.io', isVerified: true },
    });
    expect(e.json).toEqual({ status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'Email already associated with another primary user.' });
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: 'nope', primaryUserId: a.id })).text).toBe(
      errorText('Unknown user ID provided'),
    );
  });

  it('users in different tenants do not conflict', async () => {
    const pub = await importEp('tenantmix@x.io');
    const t1 = await importEp('tenantmix@x.io', '/t1');
    expect(t1.id).not.toBe(pub.id);
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: pub.id })).json.status).toBe('OK');
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: t1.id })).json.status).toBe('OK');
  });
});

describe('user id mapping', () => {
  it('maps, answers with external ids, reports conflicts and unknown ids', async () => {
    const u = await importEp('mapped@x.io');
    const map = (body: Record<string, unknown>) => api.post('/recipe/userid/map', body);
    expect((await map({ superTokensUserId: ' ', externalUserId: 'x' })).text).toBe(
      errorText("Field name 'superTokensUserId' cannot be an empty String"),
    );
    expect((await map({ superTokensUserId: 'nope', externalUserId: 'ext-0' })).json).toEqual({
      status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR',
    });
    const other = await importEp('other-mapped@x.io');
    expect((await map({ superTokensUserId: u.id, externalUserId: other.id })).text).toBe(
      errorText('Cannot create a userId mapping where the externalId is also a SuperTokens userID'),
    );
    expect((await map({ superTokensUserId: u.id, externalUserId: ' ext-1 ', externalUserIdInfo: 'from auth0' })).json).toEqual({
      status: 'OK',
    });
    expect((await map({ superTokensUserId: u.id, externalUserId: 'ext-2' })).json).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: true,
      doesExternalUserIdExist: false,
    });
    expect((await api.get('/recipe/userid/map?userId=ext-1&userIdType=EXTERNAL')).json).toEqual({
      status: 'OK',
      superTokensUserId: u.id,
      externalUserId: 'ext-1',
      externalUserIdInfo: 'from auth0',
    });
    expect((await api.get(`/recipe/userid/map?userId=${u.id}`)).json.externalUserId).toBe('ext-1');
    expect((await api.get('/recipe/userid/map?userId=ext-1&userIdType=SUPERTOKENS')).json).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
    const byExt = await api.get('/user/id?userId=ext-1');
    expect(byExt.json.user.id).toBe('ext-1');
    expect(byExt.json.user.loginMethods[0].recipeUserId).toBe('ext-1');
    expect((await api.get('/user/id?userId=nobody')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    // TOTP data under the supertokens id blocks a later mapping.
    const v = await importEp('totpfirst@x.io');
    await api.post('/recipe/totp/device/import', { userId: v.id, skew: 1, period: 30, secretKey: 'GEZDGNBVGY3TQOJQ' });
    expect((await map({ superTokensUserId: v.id, externalUserId: 'ext-3' })).text).toBe(
      errorText('UserId is already in use in TOTP recipe'),
    );
    expect((await map({ superTokensUserId: v.id, externalUserId: 'ext-3', force: true })).json).toEqual({ status: 'OK' });
  });
});

describe('tenants and apps', () => {
  it('keeps data apart per tenant and app; unknown tenant/app 400; app-specific APIs 403 on a tenant', async () => {
    const pub = await importEp('apart@x.io');
    const inT1 = await importEp('apart@x.io', '/t1');
    const inApp = await importEp('apart@x.io', '/appid-a1');
    expect(new Set([pub.id, inT1.id, inApp.id]).size).toBe(3);
    expect(inT1.tenantIds).toEqual(['t1']);
    // The app has its own users: ids of another app are unknown there.
    expect((await api.get(`/appid-a1/user/id?userId=${pub.id}`)).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await api.get(`/appid-a1/user/id?userId=${inApp.id}`)).json.user.id).toBe(inApp.id);
    const t1Users = (await api.get('/t1/users')).json.users;
    expect(t1Users.map((u: { id: string }) => u.id)).toContain(inT1.id);
    expect(t1Users.every((u: { tenantIds: string[] }) => u.tenantIds.includes('t1'))).toBe(true);
    expect((await api.post('/t2/recipe/signin', { email: 'a@x.io', password: 'x' })).text).toBe(
      errorText(
        'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, t2)',
      ),
    );
    expect((await api.post('/appid-zz/recipe/signin', { email: 'a@x.io', password: 'x' })).text).toBe(
      errorText(
        'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, zz, public)',
      ),
    );
    const forbidden = await api.get(`/t1/user/id?userId=${pub.id}`);
    expect([forbidden.status, forbidden.text]).toEqual([403, errorText('Only public tenantId can call this app specific API')]);
    expect((await api.get(`/t1/user/id?userId=${pub.id}`, { 'cdi-version': '4.0' })).status).toBe(200);
    const disabled = await api.post('/noep/recipe/user/passwordhash/import', { email: 'n@x.io', passwordHash: BCRYPT });
    expect([disabled.status, disabled.text]).toEqual([403, errorText('Email password login not enabled for tenant')]);
    expect((await api.get('/recipe/multitenancy/tenant/list/v2')).json.tenants.map((t: { tenantId: string }) => t.tenantId).sort()).toEqual(
      ['noep', 'public', 't1'],
    );
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'noep' })).json).toEqual({ status: 'OK', didExist: true });
  });
});

describe('GET /users', () => {
  it("pages with the token of the next page's first user, ordered by timeJoined then id DESC", async () => {
    await api.put('/recipe/multitenancy/tenant/v2', {
      tenantId: 'pages',
      firstFactors: ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'],
    });
    const made: Array<{ id: string; timeJoined: number }> = [];
    for (let i = 0; i < 7; i++) made.push(await importEp(`page${i}@x.io`, '/pages'));
    const expected = [...made].sort((a, b) => a.timeJoined - b.timeJoined || (a.id < b.id ? 1 : -1)).map((u) => u.id);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const a = await api.get(`/pages/users?limit=3${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`);
      expect(a.json.status).toBe('OK');
      seen.push(...a.json.users.map((u: { id: string }) => u.id));
      token = a.json.nextPaginationToken;
      if (token) {
        const [id] = Buffer.from(token, 'base64').toString().split(';');
        expect(id).toBe(expected[seen.length]);
      }
    } while (token);
    expect(seen).toEqual(expected);
    const desc = (await api.get('/pages/users?timeJoinedOrder=DESC&limit=500')).json.users.map((u: { id: string }) => u.id);
    const expectedDesc = [...made].sort((a, b) => b.timeJoined - a.timeJoined || (a.id < b.id ? 1 : -1)).map((u) => u.id);
    expect(desc).toEqual(expectedDesc);
    expect((await api.get('/pages/users?limit=501')).text).toBe(errorText('max limit allowed is 500'));
    expect((await api.get('/pages/users?limit=0')).text).toBe(errorText('limit must a positive integer with min value 1'));
    expect((await api.get('/pages/users?timeJoinedOrder=UP')).text).toBe(errorText('timeJoinedOrder can be either ASC OR DESC'));
    expect((await api.get('/pages/users?paginationToken=@@')).text).toBe(errorText('invalid pagination token'));
    expect((await api.get('/pages/users?includeRecipeIds=foo')).text).toBe(errorText('Unknown recipe ID: foo'));
    expect((await api.get('/pages/users?includeRecipeIds=thirdparty')).json.users).toEqual([]);
  });
});
