// Apps and tenants of the sandbox: `public` always exists; others are created through the multitenancy
// endpoints. Unknown ones answer the reference core's 400 text; disabled login methods its 403 texts.
import type { Ctx } from './context.js';
import { HttpError, badRequest } from './http.js';
import { key, type TenantConfig } from './store/index.js';

export function defaultTenant(app: string, tenantId: string): TenantConfig {
  return { app, tenantId, emailPasswordEnabled: true, thirdPartyEnabled: true, passwordlessEnabled: true, coreConfig: {} };
}

export function tenantConfig(ctx: Pick<Ctx, 'state'>, app: string, tenantId: string): TenantConfig | undefined {
  const stored = ctx.state.maps.tenants.get(key(app, tenantId));
  if (stored) return stored;
  return app === 'public' && tenantId === 'public' ? defaultTenant(app, tenantId) : undefined;
}

export const appExists = (ctx: Pick<Ctx, 'state'>, app: string): boolean => tenantConfig(ctx, app, 'public') !== undefined;

/** 400 when the request's app or tenant does not exist. */
export function assertTenantExists(ctx: Pick<Ctx, 'state' | 'app' | 'tenant'>): void {
  // An unknown app is reported through its tenant, as the reference core does (PathRouterTest).
  if (!appExists(ctx, ctx.app) || !tenantConfig(ctx, ctx.app, ctx.tenant)) {
    throw badRequest(
      `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${ctx.app}, ${ctx.tenant})`,
    );
  }
}

const DISABLED_TEXT = {
  emailpassword: 'Email password login not enabled for tenant',
  thirdparty: 'ThirdParty login not enabled for tenant',
  passwordless: 'Passwordless login not enabled for tenant',
} as const;

export function requireLoginMethod(ctx: Ctx, recipe: keyof typeof DISABLED_TEXT): void {
  const t = tenantConfig(ctx, ctx.app, ctx.tenant)!;
  const enabled =
    recipe === 'emailpassword' ? t.emailPasswordEnabled : recipe === 'thirdparty' ? t.thirdPartyEnabled : t.passwordlessEnabled;
  if (!enabled) throw new HttpError(403, DISABLED_TEXT[recipe]);
}
