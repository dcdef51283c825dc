// User id mapping: map a supertokens id to an external id, and read a mapping (core-api.md §4.9).
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, bool, ok, query, status, str, strOrNull } from '../http.js';
import { key, type Change } from '../store/index.js';

function nonEmpty(value: string, field: string): string {
  const t = value.trim();
  if (t === '') throw badRequest(`Field name '${field}' cannot be an empty String`);
  return t;
}

async function createMapping(ctx: Ctx) {
  const body = ctx.body();
  const superTokensUserId = nonEmpty(str(body, 'superTokensUserId'), 'superTokensUserId');
  const externalUserId = nonEmpty(str(body, 'externalUserId'), 'externalUserId');
  const info = strOrNull(body, 'externalUserIdInfo');
  const externalUserIdInfo = info === undefined || info === null ? undefined : nonEmpty(info, 'externalUserIdInfo');
  const force = bool(body, 'force', true) ?? false;
  const { state, app } = ctx;
  if (!force) {
    if (state.maps.totp.has(key(app, superTokensUserId))) throw badRequest('UserId is already in use in TOTP recipe');
    const asUser = state.maps.users.get(externalUserId);
    if (asUser && asUser.app === app) throw badRequest('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
  }
  const user = state.maps.users.get(superTokensUserId);
  if (!user || user.app !== app) return status('UNKNOWN_SUPERTOKENS_USER_ID_ERROR');
  const stTaken = state.maps.mappings.has(key(app, superTokensUserId));
  const extTaken = state.externalToSt.has(key(app, externalUserId));
  if (stTaken || extTaken) {
    return status('USER_ID_MAPPING_ALREADY_EXISTS_ERROR', { doesSuperTokensUserIdExist: stTaken, doesExternalUserIdExist: extTaken });
  }
  const mapping = { app, superTokensUserId, externalUserId, ...(externalUserIdInfo !== undefined ? { externalUserIdInfo } : {}) };
  const changes: Change[] = [{ c: 'mappings', k: key(app, superTokensUserId), v: mapping }];
  // CDI >= 4.0 moves the user's email verification to the external id (core-api.md §4.9).
  const verifiedKey = user.email ? key(app, superTokensUserId, user.email) : undefined;
  if (atLeast(ctx, '4.0') && verifiedKey && state.maps.verified.has(verifiedKey)) {
    changes.push(
      { c: 'verified', k: verifiedKey },
      { c: 'verified', k: key(app, externalUserId, user.email!), v: { app, userId: externalUserId, email: user.email! } },
    );
  }
  return commitThen(ctx, changes, () => ok());
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

export const userIdMappingRoutes: Route[] = [
  { path: '/recipe/userid/map', scope: 'app', methods: { POST: createMapping, GET: getMapping } },
];
