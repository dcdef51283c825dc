// Apps and tenants, created the way the reference core does: PUT /recipe/multitenancy/tenant/v2 (and the
// older /tenant with the *Enabled flags), PUT /recipe/multitenancy/app/v2, get, list and remove.
import type { Ctx, Route } from '../context.js';
import { HttpError, badRequest, bool, ok, status, str, strArray } from '../http.js';
import { requireFeature } from '../license.js';
import { key, type TenantConfig } from '../store/index.js';
import { defaultTenant, tenantConfig } from '../tenants.js';

const RESERVED = new Set(['recipe', 'config', 'users', 'hello']);

function validId(raw: string, what: 'tenantId' | 'appId'): string {
  const id = raw.trim().toLowerCase();
  if (what === 'tenantId' && RESERVED.has(id)) throw badRequest(`Cannot use '${id}' as a tenantId`);
  if (id.startsWith('appid-')) throw badRequest(`${what} must not start with 'appid-'`);
  if (!(what === 'appId' ? /^[a-z0-9-]+$/ : /^[a-z0-9-]+$/).test(id)) {
    throw badRequest(`${what} can only contain letters, numbers and hyphens`);
  }
  return id;
}

function factors(body: Record<string, unknown>, name: 'firstFactors' | 'requiredSecondaryFactors'): string[] | null | undefined {
  const list = strArray(body, name);
  if (list && new Set(list).size !== list.length) throw badRequest(`${name} input should not contain duplicate values`);
  return list;
}

async function upsertTenant(ctx: Ctx, app: string, tenantId: string, legacy: boolean) {
  const body = ctx.body();
  if (ctx.tenant !== 'public') throw new HttpError(403, 'You must use the public tenantId to add or update a tenant');
  const first = factors(body, 'firstFactors');
  const secondary = factors(body, 'requiredSecondaryFactors');
  if (secondary && secondary.length === 0) {
    throw badRequest('requiredSecondaryFactors cannot be empty. Set null instead to remove all required secondary factors.');
  }
  const existing = tenantConfig(ctx, app, tenantId);
  if (!existing && !(app === 'public' && tenantId === 'public')) requireFeature(ctx, 'multi_tenancy');
  let next: TenantConfig = existing ? { ...existing } : defaultTenant(app, tenantId);
  if (legacy) {
    const ep = bool(body, 'emailPasswordEnabled', true);
    const tp = bool(body, 'thirdPartyEnabled', true);
    const pl = bool(body, 'passwordlessEnabled', true);
    if (ep !== undefined) next.emailPasswordEnabled = ep;
    if (tp !== undefined) next.thirdPartyEnabled = tp;
    if (pl !== undefined) next.passwordlessEnabled = pl;
  } else {
    for (const flag of ['emailPasswordEnabled', 'thirdPartyEnabled', 'passwordlessEnabled']) {
      if (flag in body) throw badRequest(`${flag} is not allowed in this API version`);
    }
    // The v2 API (BaseCreateOrUpdate, TenantConfig.toJson_v2_5_1): a new tenant or app starts with every login
    // method disabled; naming firstFactors or requiredSecondaryFactors enables the recipes, and a tenant whose
    // recipes were all disabled keeps no first factor but those named. Seen on the reference core: a tenant
    // created with {"tenantId": "t1"} alone answers 403 "Email password login not enabled for tenant".
    if (!existing && !(app === 'public' && tenantId === 'public')) {
      next = { ...next, emailPasswordEnabled: false, thirdPartyEnabled: false, passwordlessEnabled: false };
    }
    if (first !== undefined || secondary !== undefined) {
      if (!next.emailPasswordEnabled && !next.thirdPartyEnabled && !next.passwordlessEnabled && first === undefined)
        next = { ...next, firstFactors: [] };
      next = { ...next, emailPasswordEnabled: true, thirdPartyEnabled: true, passwordlessEnabled: true };
    }
  }
  if (first !== undefined) next = { ...next, firstFactors: first };
  if (secondary !== undefined) next = { ...next, requiredSecondaryFactors: secondary };
  const coreConfig = body.coreConfig;
  if (coreConfig !== undefined && coreConfig !== null) {
    if (typeof coreConfig !== 'object' || Array.isArray(coreConfig)) throw badRequest("Field name 'coreConfig' is invalid in JSON input");
    next = { ...next, coreConfig: { ...next.coreConfig, ...(coreConfig as Record<string, unknown>) } };
  }
  await ctx.store.commit([{ c: 'tenants', k: key(app, tenantId), v: next }]);
  return ok({ createdNew: !existing });
}

/** The CDI 5.0 shape of the v1 endpoints (TenantConfig.toJson5_0: a recipe is enabled unless firstFactors is []). */
function tenantJson(t: TenantConfig): Record<string, unknown> {
  const on = (enabled: boolean) => enabled && (t.firstFactors == null || t.firstFactors.length > 0);
  const out: Record<string, unknown> = {
    tenantId: t.tenantId,
    thirdParty: { enabled: on(t.thirdPartyEnabled), providers: [] },
    emailPassword: { enabled: on(t.emailPasswordEnabled) },
    passwordless: { enabled: on(t.passwordlessEnabled) },
  };
  if (t.firstFactors && t.firstFactors.length > 0) out.firstFactors = t.firstFactors;
  if (t.requiredSecondaryFactors) out.requiredSecondaryFactors = t.requiredSecondaryFactors;
  out.coreConfig = t.coreConfig;
  return out;
}

/**
 * The v2 shape (TenantConfig.toJson_v2_5_1): no *Enabled flags; firstFactors spelled out when some recipe is
 * disabled (only the enabled recipes' factors), absent when every login method is allowed.
 */
function tenantJsonV2(t: TenantConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { tenantId: t.tenantId, thirdParty: { providers: [] } };
  let first = t.firstFactors ?? null;
  if (first === null && (!t.emailPasswordEnabled || !t.thirdPartyEnabled || !t.passwordlessEnabled)) {
    first = [];
    if (t.emailPasswordEnabled) first.push('emailpassword');
    if (t.thirdPartyEnabled) first.push('thirdparty');
    if (t.passwordlessEnabled) first.push('otp-email', 'otp-phone', 'link-email', 'link-phone');
  }
  if (first !== null) out.firstFactors = first;
  if (t.requiredSecondaryFactors) out.requiredSecondaryFactors = t.requiredSecondaryFactors;
  out.coreConfig = t.coreConfig;
  return out;
}

const putTenantV2 = (ctx: Ctx) => upsertTenant(ctx, ctx.app, validId(str(ctx.body(), 'tenantId', true) ?? 'public', 'tenantId'), false);
const putTenantV1 = (ctx: Ctx) => upsertTenant(ctx, ctx.app, validId(str(ctx.body(), 'tenantId', true) ?? 'public', 'tenantId'), true);

async function putApp(ctx: Ctx) {
  if (ctx.app !== 'public' || ctx.tenant !== 'public')
    throw new HttpError(403, 'You must use the public tenantId and public appId to add or update an app');
  return upsertTenant(ctx, validId(str(ctx.body(), 'appId', true) ?? 'public', 'appId'), 'public', false);
}

function getTenant(ctx: Ctx) {
  const t = tenantConfig(ctx, ctx.app, ctx.tenant);
  return t ? ok(tenantJson(t)) : status('TENANT_NOT_FOUND_ERROR');
}

function getTenantV2(ctx: Ctx) {
  const t = tenantConfig(ctx, ctx.app, ctx.tenant);
  return t ? ok(tenantJsonV2(t)) : status('TENANT_NOT_FOUND_ERROR');
}

function listTenants(ctx: Ctx) {
  const tenants: TenantConfig[] = [];
  if (ctx.app === 'public' && !ctx.state.maps.tenants.has(key('public', 'public'))) tenants.push(defaultTenant('public', 'public'));
  for (const t of ctx.state.maps.tenants.values()) if (t.app === ctx.app) tenants.push(t);
  return ok({ tenants: tenants.map(tenantJsonV2) });
}

async function removeTenant(ctx: Ctx) {
  if (ctx.tenant !== 'public') throw new HttpError(403, 'Only the public tenantId is allowed to delete a tenant');
  const tenantId = validId(str(ctx.body(), 'tenantId'), 'tenantId');
  if (tenantId === 'public') throw badRequest('Cannot delete public tenant, use remove app API instead');
  const k = key(ctx.app, tenantId);
  const didExist = ctx.state.maps.tenants.has(k);
  if (didExist) await ctx.store.commit([{ c: 'tenants', k }]);
  return ok({ didExist });
}

async function removeApp(ctx: Ctx) {
  if (ctx.app !== 'public' || ctx.tenant !== 'public') throw new HttpError(403, 'Only the public appId is allowed to delete an app');
  const appId = validId(str(ctx.body(), 'appId'), 'appId');
  if (appId === 'public') throw badRequest('Cannot delete the public app, use remove connection uri domain API instead');
  const keys = [...ctx.state.maps.tenants.values()].filter((t) => t.app === appId).map((t) => key(t.app, t.tenantId));
  if (keys.length > 0) await ctx.store.commit(keys.map((k) => ({ c: 'tenants' as const, k })));
  return ok({ didExist: keys.length > 0 });
}

export const multitenancyRoutes: Route[] = [
  { path: '/recipe/multitenancy/tenant/v2', scope: 'tenant', methods: { PUT: putTenantV2, GET: getTenantV2 } },
  { path: '/recipe/multitenancy/tenant', scope: 'tenant', methods: { PUT: putTenantV1, GET: getTenant } },
  { path: '/recipe/multitenancy/tenant/list/v2', scope: 'tenant', methods: { GET: listTenants } },
  { path: '/recipe/multitenancy/tenant/remove', scope: 'tenant', methods: { POST: removeTenant } },
  { path: '/recipe/multitenancy/app/v2', scope: 'tenant', methods: { PUT: putApp } },
  { path: '/recipe/multitenancy/app/remove', scope: 'tenant', methods: { POST: removeApp } },
];
