// Taking things back out of the core, as the reference core does it (what `auth-migrate rollback` calls):
// POST /user/remove (DeleteUserAPI: userId supertokens or external, removeAllLinkedAccounts default true, an unknown
// user is OK), POST /recipe/accountlinking/user/unlink (UnlinkAccountAPI) and POST /recipe/userid/map/remove
// (RemoveUserIdMappingAPI). Removing a login method removes what hangs on its ids: its mapping, its email
// verification, its TOTP devices, its metadata and roles.
import { commitThen, type Ctx, type Route } from '../context.js';
import { HttpError, badRequest, bool, ok, str } from '../http.js';
import { requireFeature } from '../license.js';
import { key, type Change, type LoginMethod } from '../store/index.js';
import { findUser, putUser } from '../users.js';

function removalOf(ctx: Ctx, m: LoginMethod): Change[] {
  const { state, app } = ctx;
  const mapping = state.maps.mappings.get(key(app, m.id));
  const ids = mapping ? [m.id, mapping.externalUserId] : [m.id];
  const changes: Change[] = [{ c: 'users', k: m.id }];
  if (mapping) changes.push({ c: 'mappings', k: key(app, m.id) });
  for (const id of ids) {
    if (m.email && state.maps.verified.has(key(app, id, m.email))) changes.push({ c: 'verified', k: key(app, id, m.email) });
    if (state.maps.totp.has(key(app, id))) changes.push({ c: 'totp', k: key(app, id) });
    if (state.maps.metadata.has(key(app, id))) changes.push({ c: 'metadata', k: key(app, id) });
    for (const t of m.tenantIds) if (state.maps.userRoles.has(key(app, t, id))) changes.push({ c: 'userRoles', k: key(app, t, id) });
  }
  return changes;
}

async function removeUser(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const all = bool(body, 'removeAllLinkedAccounts', true) ?? true;
  const u = findUser(ctx, userId);
  if (!u) return ok();
  const group = ctx.state.group(u);
  const doomed = all ? group : [u];
  const changes = doomed.flatMap((m) => removalOf(ctx, m));
  if (!all && u.primaryUserId === u.id) {
    // The sandbox keeps no primary id without its login method: the others are left unlinked (docs/sandbox.md).
    for (const m of group) if (m.id !== u.id) changes.push(putUser({ ...m, primaryUserId: undefined }));
  }
  return commitThen(ctx, changes, () => ok());
}

async function unlink(ctx: Ctx) {
  const u = findUser(ctx, str(ctx.body(), 'recipeUserId'));
  if (!u) throw badRequest('Unknown user ID provided');
  requireFeature(ctx, 'account_linking');
  if (!u.primaryUserId) return ok({ wasRecipeUserDeleted: false, wasLinked: false });
  if (u.primaryUserId !== u.id)
    return commitThen(ctx, [putUser({ ...u, primaryUserId: undefined })], () => ok({ wasRecipeUserDeleted: false, wasLinked: true }));
  const others = ctx.state.group(u).filter((m) => m.id !== u.id);
  if (others.length === 0)
    return commitThen(ctx, [putUser({ ...u, primaryUserId: undefined })], () => ok({ wasRecipeUserDeleted: false, wasLinked: false }));
  // The reference deletes the recipe user and keeps its id as the others' primary; the sandbox cannot keep a
  // primary id without its login method (docs/sandbox.md, known differences).
  throw new HttpError(
    500,
    'java.lang.UnsupportedOperationException: the sandbox cannot unlink a primary user that has other linked accounts',
  );
}

async function removeMapping(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const type = str(body, 'userIdType', true) ?? 'ANY';
  if (!['SUPERTOKENS', 'EXTERNAL', 'ANY'].includes(type))
    throw badRequest("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'");
  const { state, app } = ctx;
  let st = type !== 'EXTERNAL' && state.maps.mappings.has(key(app, userId)) ? userId : undefined;
  if (st === undefined && type !== 'SUPERTOKENS') st = state.externalToSt.get(key(app, userId));
  if (st === undefined) return ok({ didMappingExist: false });
  return commitThen(ctx, [{ c: 'mappings', k: key(app, st) }], () => ok({ didMappingExist: true }));
}

export const removalRoutes: Route[] = [
  { path: '/user/remove', scope: 'app', methods: { POST: removeUser } },
  { path: '/recipe/accountlinking/user/unlink', scope: 'app', methods: { POST: unlink } },
  { path: '/recipe/userid/map/remove', scope: 'app', methods: { POST: removeMapping } },
];
