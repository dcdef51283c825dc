// The session exchange checks, run against the sandbox (exchange.test.ts) and against a real core such as the
// reference (test/core/session-exchange.test.ts, AUTH_MIGRATE_TEST_CORE_URL): supertokens-node initialised against the
// core, a local test issuer (RS256 over a JWKS URL on 127.0.0.1, and HS256), migrated users made through the core's
// API (one kept its old id as external id, one is found by its verified email). Every id and email carries `tag`,
// so a shared core is not disturbed. One suite per process: supertokens.init is global.
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import UserRoles from 'supertokens-node/recipe/userroles';
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeLegacySession, type ExchangeOptions, type IssuerConfig } from '../../../packages/signin/src/session/index.js';
import { client } from '../sandbox.js';
import { startTestIssuer, type TestIssuer } from './issuer.js';

export interface ExchangeTarget {
  url: string;
  apiKey?: string;
  stop?: () => Promise<void>;
}

export function sessionExchangeSuite(label: string, skip: boolean, start: () => Promise<ExchangeTarget>, tag: string): void {
  const domain = `${tag}.exchange.test`;
  const SUB1 = `old-sub-1-${tag}`;
  const SUBB = `old-sub-b-${tag}`;
  const TENANT = `tenant-${tag}`;
  let target: ExchangeTarget;
  let api: ReturnType<typeof client>;
  let issuer: TestIssuer;
  let options: ExchangeOptions;
  let byEmailId: string;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    if (skip) return;
    target = await start();
    api = client(target, target.apiKey ? { 'api-key': target.apiKey } : {});
    issuer = await startTestIssuer();
    supertokens.init({
      supertokens: { connectionURI: target.url, ...(target.apiKey ? { apiKey: target.apiKey } : {}) },
      appInfo: { appName: 'exchange-test', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
      recipeList: [EmailPassword.init(), Session.init(), UserRoles.init()],
    });
    const mapped = await api.post('/recipe/signup', { email: `mapped@${domain}`, password: 'pw-123456' });
    expect((await api.post('/recipe/userid/map', { superTokensUserId: mapped.json.user.id, externalUserId: SUB1 })).json.status).toBe('OK');
    byEmailId = (await api.post('/recipe/signup', { email: `byemail@${domain}`, password: 'pw-123456' })).json.user.id;
    const rs: IssuerConfig = { issuer: issuer.url, audience: 'my-app', jwksUri: issuer.jwksUri };
    const hs: IssuerConfig = { issuer: 'https://hs.test', audience: 'hs-app', secret: issuer.secret };
    options = { issuers: [rs, hs] };
  });
  afterAll(async () => {
    await issuer?.close();
    await target?.stop?.();
  });

  const rs = (claims: Record<string, unknown> = {}) => issuer.rs256({ iss: issuer.url, aud: 'my-app', sub: SUB1, ...claims });
  const hs = (claims: Record<string, unknown> = {}) => issuer.hs256({ iss: 'https://hs.test', aud: 'hs-app', ...claims });

  describe.skipIf(skip)(`exchangeLegacySession (${label})`, () => {
    it('makes the session on the tenant asked for, and refuses a user who is not in it', async () => {
      expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: TENANT, firstFactors: null })).status).toBe(200);
      const inB = await api.post(`/${TENANT}/recipe/signup`, { email: `tenant@${domain}`, password: 'pw-123456' });
      expect((await api.post('/recipe/userid/map', { superTokensUserId: inB.json.user.id, externalUserId: SUBB })).json.status).toBe('OK');
      const out = await exchangeLegacySession(await rs({ sub: SUBB }), { ...options, tenantId: TENANT });
      if (out.status !== 'OK') throw new Error(`${out.status}: ${out.reason}`);
      expect(out.session.getTenantId()).toBe(TENANT);
      const verified = await Session.getSessionWithoutRequestResponse(out.tokens.accessToken, out.tokens.antiCsrfToken);
      expect([verified.getUserId(), verified.getTenantId()]).toEqual([SUBB, TENANT]);
      expect(await exchangeLegacySession(await rs({ sub: SUB1 }), { ...options, tenantId: TENANT })).toEqual({
        status: 'UNKNOWN_USER',
        reason: 'the user is not in this tenant',
      });
    });

    it('gives the user whose external id is the subject a session (RS256 over JWKS) that the SDK verifies', async () => {
      const out = await exchangeLegacySession(await rs(), options);
      if (out.status !== 'OK') throw new Error(`${out.status}: ${out.reason}`);
      expect(out).toMatchObject({ userId: SUB1, recipeUserId: SUB1, matchedBy: 'external-id' });
      const verified = await Session.getSessionWithoutRequestResponse(out.tokens.accessToken, out.tokens.antiCsrfToken, {
        checkDatabase: true,
      });
      expect(verified.getUserId()).toBe(SUB1);
      expect(verified.getHandle()).toBe(out.session.getHandle());
    });

    it('finds a user by a verified email claim (HS256) and refuses an unverified one or an unknown subject', async () => {
      const out = await exchangeLegacySession(
        await hs({ sub: `unknown-${tag}`, email: `ByEmail@${domain}`, email_verified: true }),
        options,
      );
      if (out.status !== 'OK') throw new Error(`${out.status}: ${out.reason}`);
      expect(out).toMatchObject({ userId: byEmailId, matchedBy: 'verified-email' });
      expect((await Session.getSessionWithoutRequestResponse(out.tokens.accessToken, out.tokens.antiCsrfToken)).getUserId()).toBe(
        byEmailId,
      );
      const unverified = await exchangeLegacySession(
        await hs({ sub: `unknown-${tag}`, email: `byemail@${domain}`, email_verified: false }),
        options,
      );
      expect(unverified.status).toBe('UNKNOWN_USER');
      const nobody = await exchangeLegacySession(await rs({ sub: `nobody-${tag}` }), options);
      expect(nobody.status).toBe('UNKNOWN_USER');
      const otherEmail = await exchangeLegacySession(await hs({ sub: 'x', email: `stranger@${domain}`, email_verified: true }), options);
      expect(otherEmail.status).toBe('UNKNOWN_USER');
    });

    it('refuses expired, not-yet-valid, wrong-issuer, wrong-audience and badly signed tokens', async () => {
      const cases: Array<[string, Promise<string>, string]> = [
        ['expired', rs({ iat: now() - 600, exp: now() - 60 }), 'expired'],
        ['not yet valid', rs({ nbf: now() + 600 }), 'not yet valid (nbf)'],
        ['wrong issuer', issuer.rs256({ iss: 'https://elsewhere.test', aud: 'my-app', sub: SUB1 }), 'wrong issuer'],
        ['wrong audience', rs({ aud: 'other-app' }), 'wrong audience'],
        [
          'bad RSA signature',
          generateKeyPair('RS256').then(({ privateKey }) => issuer.rs256({ iss: issuer.url, aud: 'my-app', sub: SUB1 }, privateKey)),
          'bad signature',
        ],
        [
          'bad HS256 secret',
          issuer.hs256({ iss: 'https://hs.test', aud: 'hs-app', sub: SUB1 }, 'another-secret-of-enough-length-0123456789'),
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
      expect((await exchangeLegacySession(await rs({ exp: now() - 2 }), { ...options, clockToleranceSec: 0 })).status).toBe(
        'INVALID_TOKEN',
      );
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
      await exchangeLegacySession(await rs({ sub: `nobody-${tag}` }), options);
      expect((await api.get('/recipe/roles')).json.roles.length).toBe(before);
    });
  });
}
