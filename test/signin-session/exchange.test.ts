// exchangeLegacySession end to end: a real sandbox core on a real port, supertokens-node initialised against it,
// and a local test issuer (RS256 over a JWKS URL on 127.0.0.1, and HS256). Migrated users are made through the
// core's API: one kept its old id as external id, one is found by its verified email.
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import UserRoles from 'supertokens-node/recipe/userroles';
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeLegacySession, type ExchangeOptions, type IssuerConfig } from '../../packages/signin/src/session/index.js';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE, client, startTestSandbox } from '../sandbox/helpers.js';
import { startTestIssuer, type TestIssuer } from './issuer.js';

const API_KEY = 'exchange-test-api-key-0123456789';
let sb: RunningSandbox;
let api: ReturnType<typeof client>;
let issuer: TestIssuer;
let options: ExchangeOptions;
let byEmailId: string;
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  sb = await startTestSandbox({ apiKeys: [API_KEY], licenseKey: LICENSE });
  api = client(sb, { 'api-key': API_KEY });
  issuer = await startTestIssuer();
  supertokens.init({
    supertokens: { connectionURI: sb.url, apiKey: API_KEY },
    appInfo: { appName: 'exchange-test', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    recipeList: [EmailPassword.init(), Session.init(), UserRoles.init()],
  });
  const mapped = await api.post('/recipe/signup', { email: 'mapped@x.io', password: 'pw-123456' });
  expect((await api.post('/recipe/userid/map', { superTokensUserId: mapped.json.user.id, externalUserId: 'old-sub-1' })).json.status).toBe(
    'OK',
  );
  byEmailId = (await api.post('/recipe/signup', { email: 'byemail@x.io', password: 'pw-123456' })).json.user.id;
  const rs: IssuerConfig = { issuer: issuer.url, audience: 'my-app', jwksUri: issuer.jwksUri };
  const hs: IssuerConfig = { issuer: 'https://hs.test', audience: 'hs-app', secret: issuer.secret };
  options = { issuers: [rs, hs] };
});
afterAll(async () => {
  await issuer?.close();
  await sb?.stop();
});

const rs = (claims: Record<string, unknown> = {}) => issuer.rs256({ iss: issuer.url, aud: 'my-app', sub: 'old-sub-1', ...claims });
const hs = (claims: Record<string, unknown> = {}) => issuer.hs256({ iss: 'https://hs.test', aud: 'hs-app', ...claims });

describe('exchangeLegacySession', () => {
  it('makes the session on the tenant asked for, and refuses a user who is not in it', async () => {
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'team-b', firstFactors: null })).status).toBe(200);
    const inB = await api.post('/team-b/recipe/signup', { email: 'tenant@x.io', password: 'pw-123456' });
    expect((await api.post('/recipe/userid/map', { superTokensUserId: inB.json.user.id, externalUserId: 'old-sub-b' })).json.status).toBe(
      'OK',
    );
    const out = await exchangeLegacySession(await rs({ sub: 'old-sub-b' }), { ...options, tenantId: 'team-b' });
    if (out.status !== 'OK') throw new Error(`${out.status}: ${out.reason}`);
    expect(out.session.getTenantId()).toBe('team-b');
    const verified = await Session.getSessionWithoutRequestResponse(out.tokens.accessToken, out.tokens.antiCsrfToken);
    expect([verified.getUserId(), verified.getTenantId()]).toEqual(['old-sub-b', 'team-b']);
    expect(await exchangeLegacySession(await rs({ sub: 'old-sub-1' }), { ...options, tenantId: 'team-b' })).toEqual({
      status: 'UNKNOWN_USER',
      reason: 'the user is not in this tenant',
    });
  });

  it('gives the user whose external id is the subject a session (RS256 over JWKS) that the SDK verifies', async () => {
    const out = await exchangeLegacySession(await rs(), options);
    if (out.status !== 'OK') throw new Error(`${out.status}: ${out.reason}`);
    expect(out).toMatchObject({ userId: 'old-sub-1', recipeUserId: 'old-sub-1', matchedBy: 'external-id' });
    const verified = await Session.getSessionWithoutRequestResponse(out.tokens.accessToken, out.tokens.antiCsrfToken, {
      checkDatabase: true,
    });
    expect(verified.getUserId()).toBe('old-sub-1');
    expect(verified.getHandle()).toBe(out.session.getHandle());
  });

  it('finds a user by a verified email claim (HS256) and refuses an unverified one or an unknown subject', async () => {
    const out = await exchangeLegacySession(await hs({ sub: 'unknown-sub', email: 'ByEmail@x.io', email_verified: true }), options);
    if (out.status !== 'OK') throw new Error(`${out.status}: ${out.reason}`);
    expect(out).toMatchObject({ userId: byEmailId, matchedBy: 'verified-email' });
    expect((await Session.getSessionWithoutRequestResponse(out.tokens.accessToken, out.tokens.antiCsrfToken)).getUserId()).toBe(byEmailId);
    const unverified = await exchangeLegacySession(await hs({ sub: 'unknown-sub', email: 'byemail@x.io', email_verified: false }), options);
    expect(unverified.status).toBe('UNKNOWN_USER');
    const nobody = await exchangeLegacySession(await rs({ sub: 'nobody' }), options);
    expect(nobody.status).toBe('UNKNOWN_USER');
    const otherEmail = await exchangeLegacySession(await hs({ sub: 'x', email: 'stranger@x.io', email_verified: true }), options);
    expect(otherEmail.status).toBe('UNKNOWN_USER');
  });

  it('refuses expired, not-yet-valid, wrong-issuer, wrong-audience and badly signed tokens', async () => {
    const cases: Array<[string, Promise<string>, string]> = [
      ['expired', rs({ iat: now() - 600, exp: now() - 60 }), 'expired'],
      ['not yet valid', rs({ nbf: now() + 600 }), 'not yet valid (nbf)'],
      ['wrong issuer', issuer.rs256({ iss: 'https://elsewhere.test', aud: 'my-app', sub: 'old-sub-1' }), 'wrong issuer'],
      ['wrong audience', rs({ aud: 'other-app' }), 'wrong audience'],
      [
        'bad RSA signature',
        generateKeyPair('RS256').then(({ privateKey }) => issuer.rs256({ iss: issuer.url, aud: 'my-app', sub: 'old-sub-1' }, privateKey)),
        'bad signature',
      ],
      [
        'bad HS256 secret',
        issuer.hs256({ iss: 'https://hs.test', aud: 'hs-app', sub: 'old-sub-1' }, 'another-secret-of-enough-length-0123456789'),
        'bad signature',
      ],
      ['no expiry', rs({ exp: undefined }), 'no expiry (exp)'],
    ];
    for (const [name, token, reason] of cases) {
      const out = await exchangeLegacySession(await token, options);
      expect([name, out]).toEqual([name, { status: 'INVALID_TOKEN', reason }]);
    }
    // A small clock skew is tolerated; beyond it, refused.
    expect((await exchangeLegacySession(await rs({ exp: now() - 2 }), options)).status).toBe('OK');
    expect((await exchangeLegacySession(await rs({ exp: now() - 2 }), { ...options, clockToleranceSec: 0 })).status).toBe('INVALID_TOKEN');
    expect((await exchangeLegacySession('not-a-token', options)).status).toBe('INVALID_TOKEN');
  });

  it('refuses a token exchanged before, and writes nothing for a token that fails verification', async () => {
    const token = await rs();
    expect((await exchangeLegacySession(token, options)).status).toBe('OK');
    expect(await exchangeLegacySession(token, options)).toEqual({ status: 'REPLAYED', reason: 'this token was exchanged before' });
    // The same token with its signature re-encoded (a changed padding bit) is the same token.
    const [h, p, s] = token.split('.');
    const last = s!.slice(-1);
    const flipped = 'AQgw'.includes(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : last;
    const reencoded = `${h}.${p}.${s!.slice(0, -1)}${flipped}`;
    expect(reencoded).not.toBe(token);
    expect(Buffer.from(reencoded.split('.')[2]!, 'base64url').equals(Buffer.from(s!, 'base64url'))).toBe(true);
    expect((await exchangeLegacySession(reencoded, options)).status).toBe('REPLAYED');
    const before = (await api.get('/recipe/roles')).json.roles.length;
    await exchangeLegacySession(await rs({ aud: 'other-app' }), options);
    await exchangeLegacySession(await rs({ sub: 'nobody' }), options);
    expect((await api.get('/recipe/roles')).json.roles.length).toBe(before);
  });
});
