// The issuer presets: what each returns (issuer, keys, audience checks as the vendors document them), and the
// checks beyond iss/aud that some need (Cognito's token_use and client_id, Clerk's azp, Supabase's HS256 secret),
// run by the real verifier on tokens from the local test issuer standing in for the vendor's keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth0Issuer,
  clerkIssuer,
  cognitoIssuer,
  exchangedRole,
  firebaseIssuer,
  keycloakIssuer,
  supabaseIssuer,
} from '../../packages/signin/src/session/index.js';
import type { IssuerConfig } from '../../packages/signin/src/session/types.js';
import { checkIssuerConfig, verifyLegacyToken } from '../../packages/signin/src/session/verify.js';
import { startTestIssuer, type TestIssuer } from '../support/signin-session/issuer.js';

let local: TestIssuer;
beforeAll(async () => {
  local = await startTestIssuer();
});
afterAll(() => local?.close());

/** The preset with its keys swapped for the local issuer's. */
const withLocalKeys = (c: IssuerConfig): IssuerConfig => ({ ...c, jwksUri: local.jwksUri, publicKey: undefined, secret: undefined });
const reason = async (c: IssuerConfig, token: string) => {
  const v = await verifyLegacyToken(token, [c], 5);
  return v.ok ? 'OK' : v.reason;
};

describe('issuer presets', () => {
  it('name the issuer, keys and audience each vendor documents', () => {
    expect(firebaseIssuer({ projectId: 'demo-app' })).toMatchObject({
      issuer: 'https://securetoken.google.com/demo-app',
      audience: 'demo-app',
      jwksUri: 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com',
      algorithms: ['RS256'],
    });
    expect(auth0Issuer({ domain: 'acme.eu.auth0.com', audience: 'https://api.acme' })).toMatchObject({
      issuer: 'https://acme.eu.auth0.com/',
      audience: 'https://api.acme',
      jwksUri: 'https://acme.eu.auth0.com/.well-known/jwks.json',
    });
    expect(cognitoIssuer({ region: 'eu-west-1', userPoolId: 'eu-west-1_AbC', clientId: 'client1' })).toMatchObject({
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC',
      jwksUri: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC/.well-known/jwks.json',
      audience: 'client1',
      claims: { token_use: 'id' },
    });
    expect(clerkIssuer({ frontendApi: 'clerk.acme.com', authorizedParties: ['https://acme.com'] })).toMatchObject({
      issuer: 'https://clerk.acme.com',
      jwksUri: 'https://clerk.acme.com/.well-known/jwks.json',
      authorizedParties: ['https://acme.com'],
    });
    expect(supabaseIssuer({ projectRef: 'abcd' })).toMatchObject({
      issuer: 'https://abcd.supabase.co/auth/v1',
      audience: 'authenticated',
      jwksUri: 'https://abcd.supabase.co/auth/v1/.well-known/jwks.json',
    });
    expect(keycloakIssuer({ baseUrl: 'https://id.acme.com/', realm: 'main', audience: 'web' })).toMatchObject({
      issuer: 'https://id.acme.com/realms/main',
      jwksUri: 'https://id.acme.com/realms/main/protocol/openid-connect/certs',
      audience: 'web',
    });
    for (const c of [firebaseIssuer({ projectId: 'p' }), clerkIssuer({ issuer: 'https://c.test' }), supabaseIssuer({ projectRef: 'r' })]) {
      expect(() => checkIssuerConfig(c)).not.toThrow();
    }
    expect(() => checkIssuerConfig({ issuer: 'https://x.test', jwksUri: 'https://x.test/jwks' })).toThrow(/audience/);
    expect(() => checkIssuerConfig({ issuer: 'https://x.test', audience: 'a', secret: 'short' })).toThrow(/32/);
    expect(() => checkIssuerConfig({ issuer: 'https://x.test', audience: 'a' })).toThrow(/exactly one/);
  });

  it('Cognito: an ID token needs token_use id and aud; an access token needs token_use access and client_id', async () => {
    const id = withLocalKeys(cognitoIssuer({ region: 'r', userPoolId: 'p', clientId: 'c1' }));
    const iss = id.issuer;
    expect(await reason(id, await local.rs256({ iss, aud: 'c1', sub: 's', token_use: 'id' }))).toBe('OK');
    expect(await reason(id, await local.rs256({ iss, aud: 'c1', sub: 's', token_use: 'access' }))).toBe('claim token_use rejected');
    const access = withLocalKeys(cognitoIssuer({ region: 'r', userPoolId: 'p', clientId: 'c1', tokenUse: 'access' }));
    expect(await reason(access, await local.rs256({ iss, sub: 's', token_use: 'access', client_id: 'c1' }))).toBe('OK');
    expect(await reason(access, await local.rs256({ iss, sub: 's', token_use: 'access', client_id: 'c2' }))).toBe(
      'claim client_id rejected',
    );
  });

  it('Clerk: azp must be one of the authorized parties; Auth0: the issuer keeps its trailing slash', async () => {
    const clerk = withLocalKeys(clerkIssuer({ frontendApi: 'clerk.acme.com', authorizedParties: ['https://acme.com'] }));
    expect(await reason(clerk, await local.rs256({ iss: clerk.issuer, sub: 'user_1', azp: 'https://acme.com' }))).toBe('OK');
    expect(await reason(clerk, await local.rs256({ iss: clerk.issuer, sub: 'user_1', azp: 'https://evil.test' }))).toBe(
      'wrong authorized party (azp)',
    );
    const auth0 = withLocalKeys(auth0Issuer({ domain: 'acme.auth0.com', audience: 'api' }));
    expect(await reason(auth0, await local.rs256({ iss: 'https://acme.auth0.com/', aud: 'api', sub: 'auth0|1' }))).toBe('OK');
    expect(await reason(auth0, await local.rs256({ iss: 'https://acme.auth0.com', aud: 'api', sub: 'auth0|1' }))).toBe('wrong issuer');
  });

  it('Supabase: the legacy JWT secret verifies HS256 tokens for the authenticated audience only', async () => {
    const supa = supabaseIssuer({ projectRef: 'abcd', jwtSecret: local.secret });
    expect(await reason(supa, await local.hs256({ iss: supa.issuer, aud: 'authenticated', sub: 'uuid-1' }))).toBe('OK');
    expect(await reason(supa, await local.hs256({ iss: supa.issuer, aud: 'anon', sub: 'uuid-1' }))).toBe('wrong audience');
    // An RS256 token is refused by an HS256-only issuer (no algorithm confusion).
    expect(await reason(supa, await local.rs256({ iss: supa.issuer, aud: 'authenticated', sub: 'uuid-1' }))).toBe(
      'algorithm not allowed for this issuer',
    );
  });
});

describe('replay record name', () => {
  it('matches the test vector of docs/session-migration.md', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'user-1', exp: 1700000000 })).toString('base64url');
    expect(`${header}.${payload}`).toBe('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEiLCJleHAiOjE3MDAwMDAwMDB9');
    expect(exchangedRole(`${header}.${payload}`, 1700000000)).toBe(
      'auth-migrate:exchanged:1700000000:_0rHl1x29qNMAtMj9zxstWPxeFV4aldMSNUSMZ82u3w',
    );
  });
});

describe('an issuer whose keys cannot be fetched', () => {
  it('throws (an outage, for the app to answer 5xx), rather than calling a valid token invalid', async () => {
    const down: IssuerConfig = { issuer: local.url, audience: 'a', jwksUri: 'http://127.0.0.1:9/.well-known/jwks.json' };
    const token = await local.rs256({ iss: local.url, aud: 'a', sub: 's' });
    await expect(verifyLegacyToken(token, [down], 5)).rejects.toThrow();
  });
});
