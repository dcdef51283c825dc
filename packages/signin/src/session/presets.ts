// Issuer presets for the providers auth-migrate imports from: each returns an IssuerConfig with the issuer, the
// keys and the audience checks the vendor documents. The page each is read from is cited above it; where a detail
// is not on the vendor's own page, the comment says so.
import type { IssuerConfig } from './types.js';

const trimSlash = (s: string): string => s.replace(/\/+$/, '');
const https = (hostOrUrl: string): string => trimSlash(/^https?:\/\//.test(hostOrUrl) ? hostOrUrl : `https://${hostOrUrl}`);

/**
 * Firebase Authentication ID tokens. "Verify ID tokens using a third-party JWT library",
 * https://firebase.google.com/docs/auth/admin/verify-id-tokens#verify_id_tokens_using_a_third-party_jwt_library :
 * alg RS256, `aud` = the project id, `iss` = https://securetoken.google.com/<projectId>, `sub` = the uid (non-empty),
 * exp in the future, iat and auth_time in the past. The page lists Google's keys as X.509 certificates
 * (robot/v1/metadata/x509/securetoken@system.gserviceaccount.com); this uses the same keys in JWK form from
 * service_accounts/v1/jwk/securetoken@system.gserviceaccount.com, which the page does not name (not confirmed there).
 */
export function firebaseIssuer(o: { projectId: string }): IssuerConfig {
  return {
    name: 'firebase',
    issuer: `https://securetoken.google.com/${o.projectId}`,
    audience: o.projectId,
    jwksUri: 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com',
    algorithms: ['RS256'],
  };
}

/**
 * Auth0 access tokens (audience: the API identifier) or ID tokens (audience: the application's client id).
 * "Validate JSON Web Tokens" and "Locate JSON Web Key Sets",
 * https://auth0.com/docs/secure/tokens/json-web-tokens/validate-json-web-tokens and .../locate-json-web-key-sets :
 * keys at https://<domain>/.well-known/jwks.json (from https://<domain>/.well-known/openid-configuration), RS256.
 * `iss` = https://<domain>/ with the trailing slash: shown in Oracle's API Gateway table of Auth0's iss/aud/JWKS
 * (docs.oracle.com, apigatewayusingjwttokens-identityprovider), not quoted from Auth0's page here.
 */
export function auth0Issuer(o: { domain: string; audience: string | string[] }): IssuerConfig {
  const base = https(o.domain);
  return { name: 'auth0', issuer: `${base}/`, audience: o.audience, jwksUri: `${base}/.well-known/jwks.json`, algorithms: ['RS256'] };
}

/**
 * Amazon Cognito user pool tokens. "Verifying JSON web tokens",
 * https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-verifying-a-jwt.html :
 * `iss` = https://cognito-idp.<region>.amazonaws.com/<userPoolId>, keys at <iss>/.well-known/jwks.json, RS256;
 * `token_use` is `id` or `access`; an ID token's `aud` is the app client id, an access token carries it in `client_id`
 * and has no `aud`.
 */
export function cognitoIssuer(o: { region: string; userPoolId: string; clientId: string; tokenUse?: 'id' | 'access' }): IssuerConfig {
  const issuer = `https://cognito-idp.${o.region}.amazonaws.com/${o.userPoolId}`;
  const base = { name: 'cognito', issuer, jwksUri: `${issuer}/.well-known/jwks.json`, algorithms: ['RS256'] };
  if ((o.tokenUse ?? 'id') === 'access') return { ...base, claims: { token_use: 'access', client_id: o.clientId } };
  return { ...base, audience: o.clientId, claims: { token_use: 'id' } };
}

/**
 * Clerk session tokens. "Manual JWT verification", https://clerk.com/docs/backend-requests/manual-jwt : keys at
 * https://<frontend API>/.well-known/jwks.json (or the PEM key from the dashboard), RS256; session tokens carry no
 * `aud` but `azp` (the origin that asked for the token), checked against `authorizedParties` when given (Clerk recommends it). That `iss` is the
 * Frontend API URL is what Clerk's tokens show; the page does not state it in those words.
 */
export function clerkIssuer(
  o: ({ frontendApi: string } | { issuer: string }) & { authorizedParties?: string[]; publicKey?: string },
): IssuerConfig {
  const issuer = https('frontendApi' in o ? o.frontendApi : o.issuer);
  const keys = o.publicKey !== undefined ? { publicKey: o.publicKey } : { jwksUri: `${issuer}/.well-known/jwks.json` };
  const parties = o.authorizedParties ? { authorizedParties: o.authorizedParties } : { noAudience: true };
  return { name: 'clerk', issuer, ...parties, ...keys, algorithms: ['RS256'] };
}

/**
 * Supabase Auth access tokens. "JSON Web Token (JWT)" and "JWT Claims Reference",
 * https://supabase.com/docs/guides/auth/jwts and https://supabase.com/docs/guides/auth/jwt-fields : `iss` =
 * https://<project-ref>.supabase.co/auth/v1, `aud` = `authenticated` for signed-in users. "JWT Signing Keys",
 * https://supabase.com/docs/guides/auth/signing-keys : the legacy JWT secret signs HS256; the newer asymmetric keys
 * (ES256 or RS256) are published at <iss>/.well-known/jwks.json.
 */
export function supabaseIssuer(o: { projectRef: string; jwtSecret?: string; jwksUri?: string; audience?: string }): IssuerConfig {
  const issuer = `https://${o.projectRef}.supabase.co/auth/v1`;
  const base = { name: 'supabase', issuer, audience: o.audience ?? 'authenticated' };
  if (o.jwtSecret !== undefined) return { ...base, secret: o.jwtSecret, algorithms: ['HS256'] };
  return { ...base, jwksUri: o.jwksUri ?? `${issuer}/.well-known/jwks.json`, algorithms: ['ES256', 'RS256'] };
}

/**
 * Keycloak realm tokens. `iss` = <baseUrl>/realms/<realm> (Keycloak before 17 served under /auth: pass that in
 * baseUrl), keys at <iss>/protocol/openid-connect/certs (the `jwks_uri` of the realm's
 * <iss>/.well-known/openid-configuration), RS256; `aud` is the client the token is for (an audience mapper may be
 * needed for access tokens). Confirmed from Keycloak's Server Administration Guide, identity brokering, OIDC
 * providers ("a URL like http://broker-keycloak:8180/auth/realms/test/protocol/openid-connect/certs"), and from a
 * realm's openid-configuration as published in answers quoting Keycloak 6 (issuer without a trailing slash); not
 * from a Keycloak page that lists the issuer format itself.
 */
export function keycloakIssuer(o: { baseUrl: string; realm: string; audience: string | string[] }): IssuerConfig {
  const issuer = `${trimSlash(o.baseUrl)}/realms/${o.realm}`;
  return { name: 'keycloak', issuer, audience: o.audience, jwksUri: `${issuer}/protocol/openid-connect/certs`, algorithms: ['RS256'] };
}
