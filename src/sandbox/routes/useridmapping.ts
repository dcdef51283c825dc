// User id mapping: map a supertokens id to an external id, read a mapping and remove one (core-api.md §4.9), with
// the reference's checks of where the ids are in use (non-auth.ts).
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, bool, ok, query, status, str, strOrNull } from '../http.js';
import { assertNotUsedOutsideAuth, inUse, nonAuthUses } from '../non-auth.js';
import { key, type Change, type UserIdMapping } from '../store/index.js';
import { userExists } from '../users.js';

function nonEmpty(value: string, field: string): string {
  const t = value.trim();
  if (t === '') throw badRequest(`Field name '${field}' cannot be an empty String`);
  return t;
}

/**
 * UserIdMappingAPI.doPost and UserIdMapping.createUserIdMapping (UserIdMapping.java:98-191), in their order: the
 * external id already mapped; an unknown supertokens id; unless `force`, an external id that is a supertokens id
 * and a supertokens id in use outside the auth recipes (from CDI 4.0 a use by email verification alone is moved to
 * the external id instead, in a transaction of its own); then the insert, which fails on a supertokens id already
 * mapped.
 */
async function createMapping(ctx: Ctx) {
  const body = ctx.body();
  const superTokensUserId = nonEmpty(str(body, 'superTokensUserId'), 'superTokensUserId');
  const externalUserId = nonEmpty(str(body, 'externalUserId'), 'externalUserId');
  const info = strOrNull(body, 'externalUserIdInfo');
  const externalUserIdInfo = info === undefined || info === null ? undefined : nonEmpty(info, 'externalUserIdInfo');
  const force = bool(body, 'force', true) ?? false;
  const { state, app } = ctx;
  const byExternal = state.externalToSt.get(key(app, externalUserId));
  if (byExternal !== undefined) {
    return status('USER_ID_MAPPING_ALREADY_EXISTS_ERROR', {
      doesSuperTokensUserIdExist: byExternal === superTokensUserId,
      doesExternalUserIdExist: true,
    });
  }
  if (!userExists(ctx, superTokensUserId)) return status('UNKNOWN_SUPERTOKENS_USER_ID_ERROR');
  const moved: Change[] = [];
  if (!force) {
    if (userExists(ctx, externalUserId))
      throw badRequest('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
    const used = nonAuthUses(ctx, superTokensUserId);
    if (atLeast(ctx, '4.0') && used.length === 1 && used[0] === 'EmailVerification') {
      moved.push(...moveEmailVerification(ctx, superTokensUserId, externalUserId));
    } else if (used[0]) throw inUse(used[0]);
  }
  if (state.maps.mappings.has(key(app, superTokensUserId))) {
    // The verification already moved in its own transaction (updateIsEmailVerifiedToExternalUserId) stays moved.
    const reply = () =>
      status('USER_ID_MAPPING_ALREADY_EXISTS_ERROR', { doesSuperTokensUserIdExist: true, doesExternalUserIdExist: false });
    return moved.length > 0 ? commitThen(ctx, moved, reply) : reply();
  }
  const mapping = { app, superTokensUserId, externalUserId, ...(externalUserIdInfo !== undefined ? { externalUserIdInfo } : {}) };
  return commitThen(ctx, [...moved, { c: 'mappings', k: key(app, superTokensUserId), v: mapping }], () => ok());
}

/** EmailVerificationQueries.updateIsEmailVerifiedToExternalUserId: every verified email and token of the id. */
function moveEmailVerification(ctx: Ctx, from: string, to: string): Change[] {
  const { state, app } = ctx;
  const changes: Change[] = [];
  for (const v of state.maps.verified.ofUser(app, from)) {
    changes.push({ c: 'verified', k: key(app, from, v.email) }, { c: 'verified', k: key(app, to, v.email), v: { ...v, userId: to } });
  }
  for (const k of [...state.evTokensById.get(key(app, from))]) {
    const t = state.maps.evTokens.get(k);
    if (t) changes.push({ c: 'evTokens', k, v: { ...t, userId: to } });
  }
  return changes;
}

function getMapping(ctx: Ctx) {
  const userId = nonEmpty(query(ctx.query, 'userId'), 'userId');
  const type = query(ctx.query, 'userIdType', true) ?? 'ANY';
  if (!['SUPERTOKENS', 'EXTERNAL', 'ANY'].includes(type)) {
    throw badRequest("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'");
  }
  const { state, app } = ctx;
  let mapping = type !== 'EXTERNAL' ? state.maps.mappings.get(key(app, userId)) : undefined;
  if (!mapping && type !== 'SUPERTOKENS') {
    const st = state.externalToSt.get(key(app, userId));
    mapping = st ? state.maps.mappings.get(key(app, st)) : undefined;
  }
  if (!mapping) return status('UNKNOWN_MAPPING_ERROR');
  const out: Record<string, unknown> = { superTokensUserId: mapping.superTokensUserId, externalUserId: mapping.externalUserId };
  if (mapping.externalUserIdInfo !== undefined) out.externalUserIdInfo = mapping.externalUserIdInfo;
  return ok(out);
}

/** The mapping of an id, as UserIdMapping.getUserIdMapping(..., ANY): its supertokens side first, then its external side. */
function mappingOfAny(ctx: Ctx, id: string): UserIdMapping | undefined {
  const { state, app } = ctx;
  const bySt = state.maps.mappings.get(key(app, id));
  if (bySt) return bySt;
  const st = state.externalToSt.get(key(app, id));
  return st === undefined ? undefined : state.maps.mappings.get(key(app, st));
}

/**
 * RemoveUserIdMappingAPI (RemoveUserIdMappingAPI.java:52-109) and UserIdMapping.deleteUserIdMapping
 * (UserIdMapping.java:507-550): the id is looked up by its type (an unknown one is `didMappingExist: false`); a
 * mapping whose external id is itself a supertokens user is removed without checks (state A4); otherwise, unless
 * `force`, an external id still in use by user metadata, roles, email verification or TOTP refuses with 400
 * `UserId is already in use in <recipe> recipe` (the check is on the external id, which those recipes hold once mapped).
 */
async function removeMapping(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId').trim();
  if (userId === '') throw badRequest("Field name 'userId' cannot be an empty String");
  const type = str(body, 'userIdType', true)?.trim() ?? 'ANY';
  if (!['SUPERTOKENS', 'EXTERNAL', 'ANY'].includes(type))
    throw badRequest("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'");
  const force = bool(body, 'force', true) ?? false;
  const { state, app } = ctx;
  const none = () => ok({ didMappingExist: false });
  // enforcePublicTenantAndGetStorageAndUserIdMappingForAppSpecificApi: UnknownUserIdException answers false.
  if (type === 'SUPERTOKENS' && !userExists(ctx, userId)) return none();
  if (type === 'EXTERNAL' && !state.externalToSt.has(key(app, userId))) return none();
  const mapping = mappingOfAny(ctx, userId);
  if (!mapping) return none();
  const drop = (m: UserIdMapping | undefined) =>
    m ? commitThen(ctx, [{ c: 'mappings', k: key(app, m.superTokensUserId) }], () => ok({ didMappingExist: true })) : none();
  if (userExists(ctx, mapping.externalUserId)) return drop(mapping);
  if (!force) assertNotUsedOutsideAuth(ctx, mapping.externalUserId);
  const bySt = () => state.maps.mappings.get(key(app, userId));
  const byExternal = () => {
    const st = state.externalToSt.get(key(app, userId));
    return st === undefined ? undefined : state.maps.mappings.get(key(app, st));
  };
  if (type === 'SUPERTOKENS') return drop(bySt());
  if (type === 'EXTERNAL') return drop(byExternal());
  return drop(userExists(ctx, userId) ? bySt() : byExternal());
}

export const userIdMappingRoutes: Route[] = [
  { path: '/recipe/userid/map', scope: 'app', methods: { POST: createMapping, GET: getMapping } },
  { path: '/recipe/userid/map/remove', scope: 'app', methods: { POST: removeMapping } },
];
