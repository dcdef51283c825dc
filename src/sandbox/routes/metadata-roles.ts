// User metadata and user roles, as the reference core's UserMetadataAPI (PUT merges: top-level keys replaced, a key
// set to null removed; GET answers {} for a user with none), RemoveUserMetadataAPI, CreateRoleAPI (creates the role
// or adds permissions; createdNewRole), GetRolesAPI, AddUserRoleAPI (tenant-specific; UNKNOWN_ROLE_ERROR,
// didUserAlreadyHaveRole), RemoveUserRoleAPI (didUserHaveRole) and GetRolesForUserAPI. User ids are taken as given, as there (no mapping translation).
import { commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, json, ok, query, status, str } from '../http.js';
import { key, type Change } from '../store/index.js';

function nonEmpty(value: string, field: string): string {
  const t = value.trim();
  if (t === '') throw badRequest(`Field name '${field}' cannot be an empty String`);
  return t;
}

/** The merge rule of UserMetadata.updateUserMetadata (top-level keys replaced, null removes): the change to write. */
export function metadataUpdate(ctx: Pick<Ctx, 'app' | 'state'>, userId: string, update: Record<string, unknown>) {
  const k = key(ctx.app, userId);
  const metadata = { ...(ctx.state.maps.metadata.get(k)?.metadata ?? {}) };
  for (const [field, value] of Object.entries(update)) {
    if (value === null) delete metadata[field];
    else metadata[field] = value;
  }
  return { change: { c: 'metadata', k, v: { app: ctx.app, userId, metadata } } satisfies Change, metadata };
}

function putMetadata(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const update = body.metadataUpdate;
  if (typeof update !== 'object' || update === null || Array.isArray(update))
    throw badRequest("Field name 'metadataUpdate' is invalid in JSON input");
  const { change, metadata } = metadataUpdate(ctx, userId, update as Record<string, unknown>);
  return commitThen(ctx, [change], () => json({ metadata, status: 'OK' }));
}

function getMetadata(ctx: Ctx) {
  const userId = query(ctx.query, 'userId');
  return json({ metadata: ctx.state.maps.metadata.get(key(ctx.app, userId))?.metadata ?? {}, status: 'OK' });
}

async function removeMetadata(ctx: Ctx) {
  const k = key(ctx.app, str(ctx.body(), 'userId'));
  if (ctx.state.maps.metadata.has(k)) await ctx.store.commit([{ c: 'metadata', k }]);
  return ok();
}

function createRole(ctx: Ctx) {
  const body = ctx.body();
  const role = nonEmpty(str(body, 'role'), 'role');
  const raw = body.permissions;
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) throw badRequest("Field name 'permissions' is invalid in JSON input");
  const permissions = (raw ?? []).map((p: unknown) => {
    if (typeof p !== 'string') throw badRequest("Field name 'permissions' is invalid in JSON input");
    if (p.trim() === '') throw badRequest("Field name 'permissions' cannot contain an empty string");
    return p.trim();
  });
  const k = key(ctx.app, role);
  const existing = ctx.state.maps.roles.get(k);
  const merged = [...new Set([...(existing?.permissions ?? []), ...permissions])];
  return commitThen(ctx, [{ c: 'roles', k, v: { app: ctx.app, role, permissions: merged } }], () => ok({ createdNewRole: !existing }));
}

function getRoles(ctx: Ctx) {
  const roles: string[] = [];
  for (const r of ctx.state.maps.roles.values()) if (r.app === ctx.app) roles.push(r.role);
  return ok({ roles });
}

function addUserRole(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const role = nonEmpty(str(body, 'role'), 'role');
  if (!ctx.state.maps.roles.has(key(ctx.app, role))) return status('UNKNOWN_ROLE_ERROR');
  const k = key(ctx.app, ctx.tenant, userId);
  const current = ctx.state.maps.userRoles.get(k)?.roles ?? [];
  if (current.includes(role)) return ok({ didUserAlreadyHaveRole: true });
  const next = { app: ctx.app, tenant: ctx.tenant, userId, roles: [...current, role] };
  return commitThen(ctx, [{ c: 'userRoles', k, v: next }], () => ok({ didUserAlreadyHaveRole: false }));
}

/** RemoveUserRoleAPI: UNKNOWN_ROLE_ERROR for a role the app lacks, else didUserHaveRole. */
function removeUserRole(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const role = nonEmpty(str(body, 'role'), 'role');
  if (!ctx.state.maps.roles.has(key(ctx.app, role))) return status('UNKNOWN_ROLE_ERROR');
  const k = key(ctx.app, ctx.tenant, userId);
  const current = ctx.state.maps.userRoles.get(k)?.roles ?? [];
  if (!current.includes(role)) return ok({ didUserHaveRole: false });
  const next = { app: ctx.app, tenant: ctx.tenant, userId, roles: current.filter((r) => r !== role) };
  return commitThen(ctx, [{ c: 'userRoles', k, v: next }], () => ok({ didUserHaveRole: true }));
}

function getUserRoles(ctx: Ctx) {
  const userId = query(ctx.query, 'userId');
  return ok({ roles: ctx.state.maps.userRoles.get(key(ctx.app, ctx.tenant, userId))?.roles ?? [] });
}

export const metadataRoleRoutes: Route[] = [
  { path: '/recipe/user/metadata', scope: 'app', methods: { PUT: putMetadata, GET: getMetadata } },
  { path: '/recipe/user/metadata/remove', scope: 'app', methods: { POST: removeMetadata } },
  { path: '/recipe/role', scope: 'app', methods: { PUT: createRole } },
  { path: '/recipe/roles', scope: 'app', methods: { GET: getRoles } },
  { path: '/recipe/user/role', scope: 'tenant', methods: { PUT: addUserRole } },
  { path: '/recipe/user/roles', scope: 'tenant', methods: { GET: getUserRoles } },
  { path: '/recipe/user/role/remove', scope: 'tenant', methods: { POST: removeUserRole } },
];
