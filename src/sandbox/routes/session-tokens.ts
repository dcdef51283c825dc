// The sandbox's session tokens: its RS256 signing keys (one static `s-`, one dynamic `d-` per app, kept in the
// store's `meta` collection so they survive a restart), the v5 access token JWT (header `version: "5"` and `kid`,
// payload sub/exp/iat/tId/rsub/sessionHandle/refreshTokenHash1/parentRefreshTokenHash1/antiCsrfToken plus the
// user's claims, as the reference core's AccessToken.AccessTokenInfo.toJSON writes it), the refresh token (opaque
// to the SDK: here JSON with an HMAC, the reference's is encrypted) and the stored session records.
// Behaviour is described from the reference core's session/accessToken/AccessToken.java and session/Session.java.
import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { sign as cryptoSign, timingSafeEqual, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import type { Ctx } from '../context.js';
import { key, type Change } from '../store/index.js';

/** AccessTokenInfo.requiredAndProtectedPropsV5: claims the user payload may not set. */
export const PROTECTED_V5 = [
  'sub',
  'exp',
  'iat',
  'sessionHandle',
  'refreshTokenHash1',
  'parentRefreshTokenHash1',
  'antiCsrfToken',
  'tId',
  'rsub',
];

/** The reference core's defaults: access_token_validity 3600 s, refresh_token_validity 144000 min (100 days). */
export const ACCESS_TOKEN_VALIDITY_MS = 3600 * 1000;
export const REFRESH_TOKEN_VALIDITY_MS = 144_000 * 60 * 1000;

export const sha256Hex = (s: string): string => createHash('sha256').update(s).digest('hex');
const b64 = (v: Buffer | string): string => Buffer.from(v).toString('base64url');

interface StoredKey {
  kid: string;
  pkcs8: string;
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

const loaded = new Map<string, SigningKey>();

/** Keyed by the private key itself: two apps' dynamic keys made in the same millisecond share a kid. */
function load(stored: StoredKey): SigningKey {
  let k = loaded.get(stored.pkcs8);
  if (!k) {
    const privateKey = createPrivateKey(stored.pkcs8);
    const pub = createPublicKey(privateKey).export({ format: 'jwk' });
    k = { kid: stored.kid, privateKey, jwk: { kty: 'RSA', kid: stored.kid, n: pub.n, e: pub.e, alg: 'RS256', use: 'sig' } };
    loaded.set(stored.pkcs8, k);
  }
  return k;
}

const keyName = (app: string, kind: 'static' | 'dynamic'): string => key('session-signing-key', app, kind);

/**
 * The app's signing keys, made (and put in `changes`, for the caller to commit in the same synchronous step, so two
 * requests never make two) when missing.
 */
export function signingKeys(ctx: Pick<Ctx, 'app' | 'state'>, changes: Change[]): { static: SigningKey; dynamic: SigningKey } {
  const get = (kind: 'static' | 'dynamic'): SigningKey => {
    const k = keyName(ctx.app, kind);
    const raw = ctx.state.maps.meta.get(k)?.value;
    if (raw) return load(JSON.parse(raw) as StoredKey);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const stored: StoredKey = {
      // A static key's id is `s-<uuid>`; a dynamic key's `d-<creation time>`, not a UUID (SessionAPITest4_0.checkSessionResponse).
      kid: kind === 'static' ? `s-${randomUUID()}` : `d-${Date.now()}`,
      pkcs8: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    };
    changes.push({ c: 'meta', k, v: { value: JSON.stringify(stored) } });
    return load(stored);
  };
  return { static: get('static'), dynamic: get('dynamic') };
}

/** JWKS of the app: the keys the SDK's jose verifies access tokens with. */
export function jwks(ctx: Pick<Ctx, 'app' | 'state'>, changes: Change[]): Record<string, unknown>[] {
  const keys = signingKeys(ctx, changes);
  return [keys.dynamic.jwk, keys.static.jwk];
}

export function signJwt(signing: SigningKey, payload: Record<string, unknown>): string {
  const header = b64(JSON.stringify({ kid: signing.kid, typ: 'JWT', version: '5', alg: 'RS256' }));
  const body = b64(JSON.stringify(payload));
  const signature = cryptoSign('sha256', Buffer.from(`${header}.${body}`), signing.privateKey);
  return `${header}.${body}.${b64(signature)}`;
}

export type JwtCheck = { ok: true; payload: Record<string, unknown>; kid: string } | { ok: false; message: string };

/** Verifies a JWT against the app's keys (by kid), as AccessToken.getInfoFromAccessToken does before its checks. */
export function verifyJwt(ctx: Pick<Ctx, 'app' | 'state'>, token: string): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, message: 'io.supertokens.session.jwt.JWT$JWTException: Invalid JWT' };
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { ok: false, message: 'io.supertokens.session.jwt.JWT$JWTException: Invalid JWT' };
  }
  const signing = (['static', 'dynamic'] as const)
    .map((kind) => ctx.state.maps.meta.get(keyName(ctx.app, kind))?.value)
    .filter((raw): raw is string => raw !== undefined)
    .map((raw) => load(JSON.parse(raw) as StoredKey))
    .find((k) => k.kid === header.kid);
  const data = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (!signing || header.alg !== 'RS256' || !cryptoVerify('sha256', data, signing.privateKey, Buffer.from(parts[2]!, 'base64url'))) {
    return { ok: false, message: 'io.supertokens.session.jwt.JWT$JWTException: JWT verification failed' };
  }
  return { ok: true, payload, kid: signing.kid };
}

/** A session as the store keeps it (the reference's session_info row). */
export interface SessionRecord {
  app: string;
  tenant: string;
  handle: string;
  userId: string;
  recipeUserId: string;
  refreshTokenHash2: string;
  userDataInDatabase: Record<string, unknown>;
  userDataInJWT: Record<string, unknown>;
  expiry: number;
  timeCreated: number;
  useStaticKey: boolean;
}

const sessionKey = (app: string, handle: string): string => key('session', app, handle);

export function getSession(ctx: Pick<Ctx, 'app' | 'state'>, handle: string): SessionRecord | undefined {
  const raw = ctx.state.maps.meta.get(sessionKey(ctx.app, handle))?.value;
  return raw ? (JSON.parse(raw) as SessionRecord) : undefined;
}

export const putSession = (s: SessionRecord): Change => ({ c: 'meta', k: sessionKey(s.app, s.handle), v: { value: JSON.stringify(s) } });
export const removeSession = (s: SessionRecord): Change => ({ c: 'meta', k: sessionKey(s.app, s.handle) });

/** Every session of the app (the sandbox keeps few; a scan of the meta collection). */
export function sessionsOf(ctx: Pick<Ctx, 'app' | 'state'>): SessionRecord[] {
  const prefix = key('session', ctx.app, '');
  const out: SessionRecord[] = [];
  for (const [k, v] of ctx.state.maps.meta) if (k.startsWith(prefix)) out.push(JSON.parse(v.value) as SessionRecord);
  return out;
}

/** The tenant a handle names: `<uuid>_<tenant>` for a non-public tenant (Session.getTenantIdFromSessionHandle). */
export function tenantOfHandle(handle: string): string {
  const at = handle.indexOf('_');
  return at < 0 ? 'public' : handle.slice(at + 1);
}

export interface RefreshTokenInfo {
  handle: string;
  parentRefreshTokenHash1: string | null;
  antiCsrfToken: string | null;
}

function refreshSecret(ctx: Pick<Ctx, 'app' | 'state'>, changes: Change[]): Buffer {
  const k = key('session-refresh-secret', ctx.app);
  const raw = ctx.state.maps.meta.get(k)?.value;
  if (raw) return Buffer.from(raw, 'base64');
  const secret = randomBytes(32);
  changes.push({ c: 'meta', k, v: { value: secret.toString('base64') } });
  return secret;
}

export function newRefreshToken(ctx: Pick<Ctx, 'app' | 'state'>, changes: Change[], info: RefreshTokenInfo): string {
  const body = b64(JSON.stringify({ h: info.handle, p: info.parentRefreshTokenHash1, a: info.antiCsrfToken, n: b64(randomBytes(32)) }));
  return `${body}.${b64(createHmac('sha256', refreshSecret(ctx, changes)).update(body).digest())}`;
}

export function readRefreshToken(ctx: Pick<Ctx, 'app' | 'state'>, token: string): RefreshTokenInfo | undefined {
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined) return undefined;
  const secret = ctx.state.maps.meta.get(key('session-refresh-secret', ctx.app))?.value;
  if (!secret) return undefined;
  const want = createHmac('sha256', Buffer.from(secret, 'base64')).update(body).digest();
  const got = Buffer.from(mac, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { h: string; p: string | null; a: string | null };
    return { handle: v.h, parentRefreshTokenHash1: v.p, antiCsrfToken: v.a };
  } catch {
    return undefined;
  }
}
