// The session endpoints around a session's life: read one by handle (SessionAPI.doGet; fields of the plugin
// interface's session.SessionInfo, refreshTokenHash2 and useStaticKey being transient), list a user's handles
// (SessionUserAPI), revoke (SessionRemoveAPI: one of userId or sessionHandles), the data kept with it
// (SessionDataAPI, JWTDataAPI) and the public keys (JWKSPublicAPI, JWKSAPI). Route table: session.ts.
import { atLeast, commitThen, type Ctx } from '../context.js';
import { badRequest, bool, json, obj, ok, query, status, str } from '../http.js';
import type { Change } from '../store/index.js';
import * as T from './session-tokens.js';

const UNKNOWN = 'Session does not exist.';

export function getSessionInfo(ctx: Ctx) {
  const handle = query(ctx.query, 'sessionHandle');
  const s = T.getSession(ctx, handle);
  if (!s || s.expiry < ctx.now) return status('UNAUTHORISED', { message: UNKNOWN });
  const out: Record<string, unknown> = {
    sessionHandle: s.handle,
    userId: s.userId,
    recipeUserId: s.recipeUserId,
    userDataInDatabase: s.userDataInDatabase,
    expiry: s.expiry,
    userDataInJWT: s.userDataInJWT,
    timeCreated: s.timeCreated,
    status: 'OK',
  };
  if (atLeast(ctx, '3.0')) out.tenantId = T.tenantOfHandle(s.handle);
  if (!atLeast(ctx, '4.0')) delete out.recipeUserId;
  return json(out);
}

/** A session belongs to a user by its primary id, or by its recipe user id when linked accounts are included. */
function ofUser(s: T.SessionRecord, userId: string, linked: boolean): boolean {
  return s.userId === userId || (linked && s.recipeUserId === userId);
}

export function sessionsOfUser(ctx: Ctx) {
  const userId = query(ctx.query, 'userId');
  const linked = query(ctx.query, 'fetchSessionsForAllLinkedAccounts', true) !== 'false';
  const allTenants = query(ctx.query, 'fetchAcrossAllTenants', true) !== 'false';
  const sessionHandles = T.sessionsOf(ctx)
    .filter((s) => s.expiry >= ctx.now && ofUser(s, userId, linked) && (allTenants || s.tenant === ctx.tenant))
    .map((s) => s.handle);
  return ok({ sessionHandles });
}

export function removeSessions(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId', true);
  const raw = body.sessionHandles;
  if (raw !== undefined && (!Array.isArray(raw) || raw.some((h) => typeof h !== 'string'))) {
    throw badRequest("Field name 'sessionHandles' is invalid in JSON input");
  }
  const handles = raw as string[] | undefined;
  if ((userId === undefined) === (handles === undefined))
    throw badRequest('Invalid JSON input - use one of userId or sessionHandles array');
  const acrossTenants = bool(body, 'revokeAcrossAllTenants', true);
  if (userId === undefined && acrossTenants !== undefined) {
    throw badRequest('Invalid JSON input - revokeAcrossAllTenants can only be set if userId is set');
  }
  const linked = bool(body, 'revokeSessionsForLinkedAccounts', true) ?? true;
  const all = T.sessionsOf(ctx);
  const gone =
    userId !== undefined
      ? all.filter((s) => ofUser(s, userId, linked) && (acrossTenants !== false || s.tenant === ctx.tenant))
      : all.filter((s) => handles!.includes(s.handle));
  const reply = () => ok({ sessionHandlesRevoked: gone.map((s) => s.handle) });
  return gone.length > 0 ? commitThen(ctx, gone.map(T.removeSession), reply) : reply();
}

function update(ctx: Ctx, field: 'userDataInDatabase' | 'userDataInJWT') {
  const body = ctx.body();
  const handle = str(body, 'sessionHandle');
  const data = obj(body, field);
  const s = T.getSession(ctx, handle);
  if (!s || s.expiry < ctx.now) return status('UNAUTHORISED', { message: UNKNOWN });
  if (field === 'userDataInJWT' && Object.keys(data).some((k) => T.PROTECTED_V5.includes(k)))
    throw badRequest('The user payload contains protected field');
  return commitThen(ctx, [T.putSession({ ...s, [field]: data })], () => ok());
}

export const putSessionData = (ctx: Ctx) => update(ctx, 'userDataInDatabase');
export const putJwtData = (ctx: Ctx) => update(ctx, 'userDataInJWT');

export function getSessionData(ctx: Ctx) {
  const s = T.getSession(ctx, query(ctx.query, 'sessionHandle'));
  if (!s || s.expiry < ctx.now) return status('UNAUTHORISED', { message: UNKNOWN });
  return ok({ userDataInDatabase: s.userDataInDatabase });
}

function withKeys(ctx: Ctx, build: (keys: Record<string, unknown>[]) => ReturnType<typeof json>) {
  const changes: Change[] = [];
  const keys = T.jwks(ctx, changes);
  return changes.length > 0 ? commitThen(ctx, changes, () => build(keys)) : build(keys);
}

export const publicJwks = (ctx: Ctx) => withKeys(ctx, (keys) => json({ keys }));
export const jwksWithStatus = (ctx: Ctx) => withKeys(ctx, (keys) => json({ keys, status: 'OK' }));
