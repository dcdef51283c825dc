// Conformance of the sandbox's session endpoints (src/sandbox/routes/session*.ts) with the reference core, through
// supertokens-node itself and over raw HTTP. Behaviour read from supertokens-core: webserver/api/session/
// SessionAPI.java, VerifySessionAPI.java, RefreshSessionAPI.java, SessionRemoveAPI.java, webserver/api/core/
// JWKSPublicAPI.java, session/Session.java, session/accessToken/AccessToken.java; ported checks from the tests
// src/test/java/io/supertokens/test/session/api/SessionAPITest4_0.java (badInputTest, checkSessionResponse) and
// SessionRemoveAPITest2_7.java (testRemovingMultipleSessionsGivesCorrectOutput, testRemovingSessionByUserId).
import supertokens from 'supertokens-node';
import Session from 'supertokens-node/recipe/session';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE, client, errorText, startTestSandbox } from '../support/sandbox.js';

const API_KEY = 'session-test-api-key-0123456789';
let sb: RunningSandbox;
let api: ReturnType<typeof client>;
let stId: string;

const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
const header = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8'));

beforeAll(async () => {
  sb = await startTestSandbox({ apiKeys: [API_KEY], licenseKey: LICENSE });
  api = client(sb, { 'api-key': API_KEY });
  supertokens.init({
    supertokens: { connectionURI: sb.url, apiKey: API_KEY },
    appInfo: { appName: 'session-test', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    recipeList: [EmailPassword.init(), Session.init({ antiCsrf: 'VIA_TOKEN' })],
  });
  const up = await api.post('/recipe/signup', { email: 'session-user@x.io', password: 'pw-123456' });
  stId = up.json.user.id;
  expect((await api.post('/recipe/userid/map', { superTokensUserId: stId, externalUserId: 'legacy-42' })).json.status).toBe('OK');
});
afterAll(async () => {
  await sb?.stop();
});

describe('sandbox sessions through supertokens-node', () => {
  it('creates a session (external id shown), verifies it locally and in the core, refreshes, detects theft, revokes', async () => {
    const created = await Session.createNewSessionWithoutRequestResponse('public', new supertokens.RecipeUserId(stId), { role: 'x' });
    expect(created.getUserId()).toBe('legacy-42');
    expect(created.getRecipeUserId().getAsString()).toBe('legacy-42');
    const tokens = created.getAllSessionTokensDangerously();
    const at = tokens.accessToken;
    expect(header(at)).toMatchObject({ typ: 'JWT', version: '5', alg: 'RS256' });
    // SessionAPITest4_0.checkSessionResponse: a dynamic key's id is `d-` and no UUID, a static one's `s-<uuid>`.
    expect(header(at).kid).toMatch(/^d-\d+$/);
    expect(decode(at)).toMatchObject({ sub: 'legacy-42', rsub: 'legacy-42', tId: 'public', role: 'x', parentRefreshTokenHash1: null });

    const local = await Session.getSessionWithoutRequestResponse(at, tokens.antiCsrfToken);
    expect(local.getHandle()).toBe(created.getHandle());
    const checked = await Session.getSessionWithoutRequestResponse(at, tokens.antiCsrfToken, { checkDatabase: true });
    expect(checked.getUserId()).toBe('legacy-42');
    await expect(Session.getSessionWithoutRequestResponse(at, 'wrong-anti-csrf')).rejects.toMatchObject({ type: 'TRY_REFRESH_TOKEN' });

    const info = await Session.getSessionInformation(created.getHandle());
    expect(info).toMatchObject({ userId: 'legacy-42', tenantId: 'public', customClaimsInAccessTokenPayload: { role: 'x' } });
    expect(await Session.getAllSessionHandlesForUser('legacy-42')).toEqual([created.getHandle()]);

    const refreshed = await Session.refreshSessionWithoutRequestResponse(tokens.refreshToken!, false, tokens.antiCsrfToken);
    const next = refreshed.getAllSessionTokensDangerously();
    expect(decode(next.accessToken).parentRefreshTokenHash1).toEqual(expect.any(String));
    // The child's access token, checked in the core, promotes the child refresh token and drops the parent hash.
    const promoted = await Session.getSessionWithoutRequestResponse(next.accessToken, next.antiCsrfToken);
    expect(promoted.getHandle()).toBe(created.getHandle());
    const afterPromotion = promoted.getAllSessionTokensDangerously();
    expect(decode(afterPromotion.accessToken).parentRefreshTokenHash1).toBeNull();
    // The first refresh token is now neither current nor the parent of the current one: theft.
    await expect(Session.refreshSessionWithoutRequestResponse(tokens.refreshToken!, false, tokens.antiCsrfToken)).rejects.toMatchObject({
      type: 'TOKEN_THEFT_DETECTED',
    });

    expect(await Session.revokeSession(created.getHandle())).toBe(true);
    await expect(Session.getSessionWithoutRequestResponse(at, tokens.antiCsrfToken, { checkDatabase: true })).rejects.toMatchObject({
      type: 'UNAUTHORISED',
    });
    expect(await Session.getSessionInformation(created.getHandle())).toBeUndefined();
  });
});

describe('sandbox session endpoints over HTTP', () => {
  it('serves the JWKS without an API key, with the kids the tokens carry', async () => {
    const jwks = await client(sb).get('/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.json.keys.map((k: { kid: string }) => k.kid[0]).sort()).toEqual(['d', 's']);
    expect(jwks.json.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    const viaApi = await api.get('/recipe/jwt/jwks');
    expect(viaApi.json.status).toBe('OK');
    expect(viaApi.json.keys).toEqual(jwks.json.keys);
    expect((await client(sb).get('/recipe/jwt/jwks')).status).toBe(401);
  });

  it('answers the create, verify, refresh and remove errors as the reference does', async () => {
    const base = { userId: stId, enableAntiCsrf: false, userDataInJWT: {}, userDataInDatabase: {} };
    const noUser = await api.post('/recipe/session', { ...base, userId: undefined });
    expect([noUser.status, noUser.text]).toEqual([400, errorText("Field name 'userId' is invalid in JSON input")]);
    // SessionAPITest4_0.badInputTest: each protected claim in the payload is refused.
    for (const claim of ['sub', 'rsub', 'tId', 'exp', 'sessionHandle']) {
      const prot = await api.post('/recipe/session', { ...base, userDataInJWT: { [claim]: 'value' } });
      expect([claim, prot.status, prot.text]).toEqual([claim, 400, errorText('The user payload contains protected field')]);
    }
    const stat = await api.post('/recipe/session', { ...base, useDynamicSigningKey: false });
    expect(header(stat.json.accessToken.token).kid).toMatch(/^s-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(stat.json.antiCsrfToken).toBeUndefined();
    expect(stat.json.session).toEqual({
      handle: expect.any(String),
      userId: 'legacy-42',
      recipeUserId: 'legacy-42',
      userDataInJWT: {},
      tenantId: 'public',
    });

    const bad = await api.post('/recipe/session/verify', {
      accessToken: 'a.b.c',
      doAntiCsrfCheck: false,
      enableAntiCsrf: false,
      checkDatabase: false,
    });
    expect(bad.json.status).toBe('TRY_REFRESH_TOKEN');
    const noCheck = await api.post('/recipe/session/verify', { accessToken: 'a.b.c', doAntiCsrfCheck: false, enableAntiCsrf: false });
    expect([noCheck.status, noCheck.text]).toEqual([400, errorText("Field name 'checkDatabase' is invalid in JSON input")]);
    const tampered = stat.json.accessToken.token.slice(0, -4) + 'AAAA';
    expect(
      (
        await api.post('/recipe/session/verify', {
          accessToken: tampered,
          doAntiCsrfCheck: false,
          enableAntiCsrf: false,
          checkDatabase: false,
        })
      ).json.status,
    ).toBe('TRY_REFRESH_TOKEN');
    const fine = await api.post('/recipe/session/verify', {
      accessToken: stat.json.accessToken.token,
      doAntiCsrfCheck: false,
      enableAntiCsrf: false,
      checkDatabase: true,
    });
    // A token that is its session's current one needs no new token: the answer is the session alone.
    expect(fine.json).toEqual({ session: stat.json.session, status: 'OK' });
    const refreshed = await api.post('/recipe/session/refresh', { refreshToken: stat.json.refreshToken.token, enableAntiCsrf: false });
    expect(Object.keys(refreshed.json).sort()).toEqual(['accessToken', 'refreshToken', 'session', 'status']);
    expect(header(refreshed.json.accessToken.token).kid).toMatch(/^s-/);
    const refresh = await api.post('/recipe/session/refresh', { refreshToken: 'nope', enableAntiCsrf: false });
    expect(refresh.json.status).toBe('UNAUTHORISED');

    const both = await api.post('/recipe/session/remove', { userId: 'legacy-42', sessionHandles: [] });
    expect([both.status, both.text]).toEqual([400, errorText('Invalid JSON input - use one of userId or sessionHandles array')]);
    const removed = await api.post('/recipe/session/remove', { userId: 'legacy-42' });
    expect(removed.json).toEqual({ status: 'OK', sessionHandlesRevoked: [stat.json.session.handle] });
    const unknown = await api.get(`/recipe/session?sessionHandle=${stat.json.session.handle}`);
    expect(unknown.json.status).toBe('UNAUTHORISED');
  });

  it('revokes by handles (only those still there) and by user id (SessionRemoveAPITest2_7)', async () => {
    const body = { userId: 'remove-test', enableAntiCsrf: false, userDataInJWT: { key: 'value' }, userDataInDatabase: { key: 'value' } };
    const handles: string[] = [];
    for (let i = 0; i < 4; i++) handles.push((await api.post('/recipe/session', body)).json.session.handle);
    const [s1, s2, s3, s4] = handles;
    const first = await api.post('/recipe/session/remove', { sessionHandles: [s2, s4] });
    expect(first.json.sessionHandlesRevoked.sort()).toEqual([s2, s4].sort());
    const all = await api.post('/recipe/session/remove', { sessionHandles: handles });
    expect(all.json.sessionHandlesRevoked.sort()).toEqual([s1, s3].sort());
    expect((await api.get('/recipe/session/user?userId=remove-test')).json).toEqual({ status: 'OK', sessionHandles: [] });
    const a = (await api.post('/recipe/session', body)).json.session.handle;
    const b = (await api.post('/recipe/session', body)).json.session.handle;
    expect((await api.get('/recipe/session/user?userId=remove-test')).json.sessionHandles.sort()).toEqual([a, b].sort());
    const byUser = await api.post('/recipe/session/remove', { userId: 'remove-test' });
    expect(byUser.json.sessionHandlesRevoked.sort()).toEqual([a, b].sort());
  });

  it('counts a session as a use of the id outside the auth recipes, and removes it with its user', async () => {
    // UserIdMapping.findNonAuthStoragesWhereUserIdIsUsedOrAssertIfUsed checks the Session storage first;
    // AuthRecipe's deleteNonAuthRecipeUser deletes the user's sessions.
    const user = (await api.post('/recipe/signup', { email: 'in-use@x.io', password: 'pw-123456' })).json.user.id;
    const made = await api.post('/recipe/session', { userId: user, enableAntiCsrf: false, userDataInJWT: {}, userDataInDatabase: {} });
    const map = await api.post('/recipe/userid/map', { superTokensUserId: user, externalUserId: 'in-use-ext' });
    expect([map.status, map.text]).toEqual([400, errorText('UserId is already in use in Session recipe')]);
    expect((await api.get(`/recipe/session?sessionHandle=${made.json.session.handle}`)).json.status).toBe('OK');
    expect((await api.post('/user/remove', { userId: user })).json.status).toBe('OK');
    expect((await api.get(`/recipe/session?sessionHandle=${made.json.session.handle}`)).json.status).toBe('UNAUTHORISED');
  });

  it('puts a non-public tenant in the handle and the token', async () => {
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'team-b', firstFactors: null })).status).toBe(200);
    const made = await api.post('/team-b/recipe/session', {
      userId: 'anyone',
      enableAntiCsrf: true,
      userDataInJWT: {},
      userDataInDatabase: {},
    });
    expect(made.json.session.handle).toMatch(/_team-b$/);
    expect(decode(made.json.accessToken.token).tId).toBe('team-b');
    expect(made.json.antiCsrfToken).toEqual(expect.any(String));
    const info = await api.get(`/recipe/session?sessionHandle=${made.json.session.handle}`);
    expect(info.json).toMatchObject({ status: 'OK', tenantId: 'team-b', userId: 'anyone' });
  });
});
