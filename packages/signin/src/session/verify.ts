// Verifies an old provider's token with jose: the issuer is chosen by the token's `iss` among the configured ones
// (exact match), then the signature (JWKS URL, PEM key or HS256 secret, algorithms pinned per issuer), `iss`, `aud`,
// `exp` (required), `nbf` and `iat` with a small clock tolerance, and the issuer's `azp` and fixed claims.
// Failures become INVALID_TOKEN with a reason that names the check, never the token.
import { createRemoteJWKSet, decodeJwt, errors, importSPKI, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type KeyLike } from 'jose';
import type { IssuerConfig } from './types.js';

export type Verified = { ok: true; issuer: IssuerConfig; claims: JWTPayload; signingInput: string } | { ok: false; reason: string };

const remoteSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
const pemKeys = new Map<string, Promise<KeyLike>>();

type KeyInput = KeyLike | Uint8Array | JWTVerifyGetKey;

async function keyOf(issuer: IssuerConfig, algorithms: string[]): Promise<KeyInput> {
  if (issuer.jwksUri !== undefined) {
    let set = remoteSets.get(issuer.jwksUri);
    if (!set) remoteSets.set(issuer.jwksUri, (set = createRemoteJWKSet(new URL(issuer.jwksUri))));
    return set;
  }
  if (issuer.secret !== undefined) return new TextEncoder().encode(issuer.secret);
  if (typeof issuer.publicKey !== 'string') return issuer.publicKey!;
  const id = `${algorithms[0]}\u0000${issuer.publicKey}`;
  let key = pemKeys.get(id);
  if (!key) pemKeys.set(id, (key = importSPKI(issuer.publicKey, algorithms[0]!)));
  return key;
}

export function checkIssuerConfig(issuer: IssuerConfig): void {
  if (!issuer.issuer) throw new Error("an issuer needs its `issuer` (the tokens' iss)");
  if (issuer.audience === undefined && !issuer.noAudience && !issuer.authorizedParties && !issuer.claims) {
    throw new Error(`issuer ${issuer.issuer}: give its audience (or noAudience, authorizedParties or claims)`);
  }
  const given = [issuer.jwksUri, issuer.publicKey, issuer.secret].filter((v) => v !== undefined);
  if (given.length !== 1) throw new Error(`issuer ${issuer.issuer}: give exactly one of jwksUri, publicKey and secret`);
  if (issuer.secret !== undefined && issuer.secret.length < 32)
    throw new Error(`issuer ${issuer.issuer}: an HS256 secret needs at least 32 characters`);
}

function reasonOf(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return 'not yet valid (nbf)';
    if (err.claim === 'iat') return 'issued in the future (iat)';
    if (err.claim === 'aud') return 'wrong audience';
    if (err.claim === 'iss') return 'wrong issuer';
    return `claim ${err.claim} rejected`;
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad signature';
  if (err instanceof errors.JWKSNoMatchingKey) return 'no key of the issuer matches the token (kid)';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'algorithm not allowed for this issuer';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return 'malformed token';
  throw err;
}

export async function verifyLegacyToken(token: string, issuers: IssuerConfig[], clockToleranceSec: number): Promise<Verified> {
  if (typeof token !== 'string' || token.split('.').length !== 3) return { ok: false, reason: 'malformed token' };
  let iss: unknown;
  try {
    iss = decodeJwt(token).iss;
  } catch {
    return { ok: false, reason: 'malformed token' };
  }
  const issuer = issuers.find((i) => i.issuer === iss);
  if (!issuer) return { ok: false, reason: 'wrong issuer' };
  const algorithms = issuer.algorithms ?? (issuer.secret !== undefined ? ['HS256'] : ['RS256']);
  let claims: JWTPayload;
  try {
    const key = await keyOf(issuer, algorithms);
    const checks = {
      issuer: issuer.issuer,
      ...(issuer.audience !== undefined ? { audience: issuer.audience } : {}),
      algorithms,
      clockTolerance: clockToleranceSec,
    };
    ({ payload: claims } = typeof key === 'function' ? await jwtVerify(token, key, checks) : await jwtVerify(token, key, checks));
  } catch (err) {
    return { ok: false, reason: reasonOf(err) };
  }
  if (typeof claims.exp !== 'number') return { ok: false, reason: 'no expiry (exp)' };
  if (typeof claims.sub !== 'string' || claims.sub === '') return { ok: false, reason: 'no subject (sub)' };
  if (typeof claims.iat === 'number' && claims.iat > Date.now() / 1000 + clockToleranceSec) {
    return { ok: false, reason: 'issued in the future (iat)' };
  }
  if (issuer.authorizedParties && !issuer.authorizedParties.includes(String(claims.azp)))
    return { ok: false, reason: 'wrong authorized party (azp)' };
  for (const [name, want] of Object.entries(issuer.claims ?? {})) {
    const ok = Array.isArray(want) ? want.includes(claims[name] as string) : claims[name] === want;
    if (!ok) return { ok: false, reason: `claim ${name} rejected` };
  }
  const [header, payload] = token.split('.');
  return { ok: true, issuer, claims, signingInput: `${header}.${payload}` };
}
