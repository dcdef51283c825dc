// The session endpoints supertokens-node needs to create, verify, refresh, read and revoke sessions, answered as the
// reference core answers them. Read from supertokens-core: webserver/api/session/SessionAPI.java (POST create, GET by
// handle), VerifySessionAPI.java, RefreshSessionAPI.java, SessionRemoveAPI.java, SessionUserAPI.java,
// SessionDataAPI.java, JWTDataAPI.java, webserver/api/core/JWKSPublicAPI.java (`/.well-known/jwks.json`, no API key,
// no cdi-version), webserver/api/jwt/JWKSAPI.java (`/recipe/jwt/jwks`), session/Session.java (createNewSession,
// getSession, refreshSessionHelper) and session/accessToken/AccessToken.java; tests
// src/test/java/io/supertokens/test/session/api/SessionAPITest4_0.java and SessionRemoveAPITest2_7.java (ported in
// test/signin-session/sandbox-session.test.ts).
// Not reproduced: access tokens older than v5 (CDI < 4.0 gets v5 tokens too), the legacy signing-key fields of
// CDI < 2.21, dynamic key rotation (one dynamic key per app, never rotated), /recipe/session/regenerate.
import { randomUUID } from 'node:crypto';
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, bool, json, obj, ok, status, str } from '../http.js';
import { key, type Change } from '../store/index.js';
import { externalId } from '../users.js';
import * as A from './session-admin.js';
import * as T from './session-tokens.js';

interface TokenFor {
  handle: string;
  tenant: string;
  userId: string;
  recipeUserId: string;
  userDataInJWT: Record<string, unknown>;
  useStaticKey: boolean;
}

/** AccessToken.createNewAccessToken (v5): exp and iat in seconds, times rounded down to the second. */
function accessToken(ctx: Ctx, changes: Change[], s: TokenFor, hash1: string, parent: string | null, anti: string | null) {
  const keys = T.signingKeys(ctx, changes);
  const now = ctx.now;
  const expires = now + T.ACCESS_TOKEN_VALIDITY_MS;
  const payload = {
    sub: s.userId,
    exp: Math.floor(expires / 1000),
    iat: Math.floor(now / 1000),
    tId: s.tenant,
    rsub: s.recipeUserId,
    sessionHandle: s.handle,
    refreshTokenHash1: hash1,
    parentRefreshTokenHash1: parent,
    antiCsrfToken: anti,
    ...s.userDataInJWT,
  };
  const token = T.signJwt(s.useStaticKey ? keys.static : keys.dynamic, payload);
  return { token, expiry: expires - (expires % 1000), createdTime: now - (now % 1000) };
}

function sessionJson(ctx: Ctx, s: TokenFor) {
  const out: Record<string, unknown> = { handle: s.handle, userId: s.userId, recipeUserId: s.recipeUserId, userDataInJWT: s.userDataInJWT };
  if (!atLeast(ctx, '4.0')) delete out.recipeUserId;
  if (atLeast(ctx, '3.0')) out.tenantId = s.tenant;
  return out;
}

/** Session.createNewSession: an external id is taken back to its supertokens id, then primary and recipe ids shown external. */
function createSession(ctx: Ctx) {
  const body = ctx.body();
  const given = str(body, 'userId');
  const enableAntiCsrf = bool(body, 'enableAntiCsrf');
  const userDataInJWT = obj(body, 'userDataInJWT');
  const userDataInDatabase = obj(body, 'userDataInDatabase');
  // access_token_signing_key_dynamic defaults to true; from CDI 2.21 only an explicit false asks for the static key.
  const useStaticKey = atLeast(ctx, '2.21') ? bool(body, 'useDynamicSigningKey', true) === false : false;
  if (Object.keys(userDataInJWT).some((k) => T.PROTECTED_V5.includes(k))) throw badRequest('The user payload contains protected field');
  const st = ctx.state.externalToSt.get(key(ctx.app, given)) ?? given;
  const primary = ctx.state.maps.users.get(st)?.primaryUserId ?? st;
  const handle = randomUUID() + (ctx.tenant === 'public' ? '' : `_${ctx.tenant}`);
  const s: TokenFor = {
    handle,
    tenant: ctx.tenant,
    userId: externalId(ctx, primary),
    recipeUserId: externalId(ctx, st),
    userDataInJWT,
    useStaticKey,
  };
  const anti = enableAntiCsrf ? randomUUID() : null;
  const changes: Change[] = [];
  const refresh = T.newRefreshToken(ctx, changes, { handle, parentRefreshTokenHash1: null, antiCsrfToken: anti });
  const refreshToken = { token: refresh, expiry: ctx.now + T.REFRESH_TOKEN_VALIDITY_MS, createdTime: ctx.now };
  const access = accessToken(ctx, changes, s, T.sha256Hex(refresh), null, anti);
  const record: T.SessionRecord = {
    app: ctx.app,
    tenant: ctx.tenant,
    handle,
    userId: s.userId,
    recipeUserId: s.recipeUserId,
    refreshTokenHash2: T.sha256Hex(T.sha256Hex(refresh)),
    userDataInDatabase,
    userDataInJWT,
    expiry: refreshToken.expiry,
    timeCreated: ctx.now,
    useStaticKey,
  };
  changes.push(T.putSession(record));
  return commitThen(ctx, changes, () =>
    json({ session: sessionJson(ctx, s), accessToken: access, refreshToken, ...(anti ? { antiCsrfToken: anti } : {}), status: 'OK' }),
  );
}

const userData = (payload: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(payload).filter(([k]) => !T.PROTECTED_V5.includes(k)));

const tryRefresh = (message: string) => status('TRY_REFRESH_TOKEN', { message });

/** Session.getSession (VerifySessionAPI): the token's checks, then the database only when needed or asked. */
function verifySession(ctx: Ctx) {
  const body = ctx.body();
  const token = str(body, 'accessToken');
  const antiCsrfToken = str(body, 'antiCsrfToken', true);
  const doAntiCsrfCheck = bool(body, 'doAntiCsrfCheck');
  const enableAntiCsrf = bool(body, 'enableAntiCsrf');
  // From CDI 2.21 checkDatabase is required; before, access_token_blacklisting (default false) decided.
  const checkDatabase = atLeast(ctx, '2.21') ? bool(body, 'checkDatabase') : false;
  const checked = T.verifyJwt(ctx, token);
  if (!checked.ok) return tryRefresh(checked.message);
  const p = checked.payload;
  const missing = T.PROTECTED_V5.find((k) => !(k in p));
  if (missing) return tryRefresh(`Access token does not contain all the information. Maybe the structure has changed? ${missing}`);
  if (Number(p.exp) * 1000 < ctx.now) return tryRefresh('Access token expired');
  const anti = typeof p.antiCsrfToken === 'string' ? p.antiCsrfToken : null;
  if (doAntiCsrfCheck && enableAntiCsrf && anti === null)
    return tryRefresh('Access token does not contain all the information. Maybe the structure has changed?');
  if (enableAntiCsrf && doAntiCsrfCheck && antiCsrfToken !== anti) return tryRefresh('anti-csrf check failed');
  const s: TokenFor = {
    handle: String(p.sessionHandle),
    tenant: String(p.tId),
    userId: String(p.sub),
    recipeUserId: String(p.rsub),
    userDataInJWT: userData(p),
    useStaticKey: checked.kid.startsWith('s-'),
  };
  const stored = T.getSession(ctx, s.handle);
  if (checkDatabase && !stored) return status('UNAUTHORISED', { message: 'Either the session has ended or has been blacklisted' });
  const needsUpdate = stored !== undefined && JSON.stringify(s.userDataInJWT) !== JSON.stringify(stored.userDataInJWT);
  const parent = typeof p.parentRefreshTokenHash1 === 'string' ? p.parentRefreshTokenHash1 : null;
  if (parent === null && !needsUpdate) return ok({ session: sessionJson(ctx, s) });
  if (!stored) return status('UNAUTHORISED', { message: 'Session missing in db' });
  const hash1 = String(p.refreshTokenHash1);
  const promote = parent !== null && stored.refreshTokenHash2 === T.sha256Hex(parent);
  if (!promote && stored.refreshTokenHash2 !== T.sha256Hex(hash1) && !needsUpdate) return ok({ session: sessionJson(ctx, s) });
  const changes: Change[] = [];
  if (promote)
    changes.push(T.putSession({ ...stored, refreshTokenHash2: T.sha256Hex(hash1), expiry: ctx.now + T.REFRESH_TOKEN_VALIDITY_MS }));
  const fresh = { ...s, userDataInJWT: stored.userDataInJWT, useStaticKey: stored.useStaticKey };
  const access = accessToken(ctx, changes, fresh, hash1, null, anti);
  return commitThen(ctx, changes, () => ok({ session: sessionJson(ctx, fresh), accessToken: access }));
}

/** Session.refreshSession and refreshSessionHelper: the parent token refreshes; a child promotes itself first; else theft. */
function refreshSession(ctx: Ctx) {
  const body = ctx.body();
  const token = str(body, 'refreshToken');
  const antiCsrfToken = str(body, 'antiCsrfToken', true);
  const enableAntiCsrf = bool(body, 'enableAntiCsrf');
  const dynamic = atLeast(ctx, '2.21') ? bool(body, 'useDynamicSigningKey', true) : undefined;
  const info = T.readRefreshToken(ctx, token);
  if (!info) return status('UNAUTHORISED', { message: 'javax.crypto.AEADBadTagException: Tag mismatch' });
  if (enableAntiCsrf && info.antiCsrfToken !== null && info.antiCsrfToken !== antiCsrfToken)
    return status('UNAUTHORISED', { message: 'Anti CSRF token missing, or not matching' });
  const stored = T.getSession(ctx, info.handle);
  if (!stored || stored.expiry < ctx.now) return status('UNAUTHORISED', { message: 'Session missing in db or has expired' });
  const useStaticKey = dynamic === undefined || dynamic === null ? stored.useStaticKey : !dynamic;
  const changes: Change[] = [];
  let current = stored;
  if (stored.refreshTokenHash2 !== T.sha256Hex(T.sha256Hex(token))) {
    const parent = info.parentRefreshTokenHash1;
    if (parent === null || T.sha256Hex(parent) !== stored.refreshTokenHash2) {
      return status('TOKEN_THEFT_DETECTED', {
        session: { handle: stored.handle, userId: stored.userId, recipeUserId: stored.recipeUserId },
      });
    }
    current = { ...stored, refreshTokenHash2: T.sha256Hex(T.sha256Hex(token)), expiry: ctx.now + T.REFRESH_TOKEN_VALIDITY_MS };
  }
  if (current !== stored || useStaticKey !== stored.useStaticKey) changes.push(T.putSession({ ...current, useStaticKey }));
  const anti = enableAntiCsrf ? randomUUID() : null;
  const hash1 = T.sha256Hex(token);
  const next = T.newRefreshToken(ctx, changes, { handle: stored.handle, parentRefreshTokenHash1: hash1, antiCsrfToken: anti });
  const s: TokenFor = { ...stored, useStaticKey };
  const access = accessToken(ctx, changes, s, T.sha256Hex(next), hash1, anti);
  const refreshToken = { token: next, expiry: ctx.now + T.REFRESH_TOKEN_VALIDITY_MS, createdTime: ctx.now };
  return commitThen(ctx, changes, () =>
    json({ session: sessionJson(ctx, s), accessToken: access, refreshToken, ...(anti ? { antiCsrfToken: anti } : {}), status: 'OK' }),
  );
}

export const sessionRoutes: Route[] = [
  { path: '/recipe/session', scope: 'tenant', methods: { POST: createSession, GET: A.getSessionInfo } },
  { path: '/recipe/session/verify', scope: 'app', methods: { POST: verifySession } },
  { path: '/recipe/session/refresh', scope: 'app', methods: { POST: refreshSession } },
  { path: '/recipe/session/remove', scope: 'tenant', methods: { POST: A.removeSessions } },
  { path: '/recipe/session/user', scope: 'tenant', methods: { GET: A.sessionsOfUser } },
  { path: '/recipe/session/data', scope: 'app', methods: { PUT: A.putSessionData, GET: A.getSessionData } },
  { path: '/recipe/jwt/data', scope: 'app', methods: { PUT: A.putJwtData } },
  { path: '/recipe/jwt/jwks', scope: 'app', methods: { GET: A.jwksWithStatus } },
  { path: '/.well-known/jwks.json', scope: 'app', versioned: false, apiKey: false, methods: { GET: A.publicJwks } },
];
