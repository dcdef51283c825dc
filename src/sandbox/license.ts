// The sandbox's licence rule: any non-empty licence key (from --license-key or PUT /ee/license) enables the
// paid features; without one, they answer 402 with the reference core's texts.
import type { Ctx } from './context.js';
import { HttpError } from './http.js';

export const PAID_FEATURES = ['account_linking', 'mfa', 'multi_tenancy'] as const;
export type Feature = (typeof PAID_FEATURES)[number];

export const LICENSE_TEXTS: Record<Feature, string> = {
  mfa: 'MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.',
  account_linking: 'Account linking feature is not enabled for this app. Please contact support to enable it.',
  multi_tenancy: "Cannot use feature: multi_tenancy, because the license key is missing, or doesn't have this feature enabled.",
};

/** The licence in force: the stored one (PUT/DELETE /ee/license) once set, else the command line's. */
export function currentLicenseKey(ctx: Pick<Ctx, 'state' | 'config'>): string {
  return ctx.state.maps.meta.get('license')?.value ?? ctx.config.licenseKey ?? '';
}

export function enabledFeatures(ctx: Pick<Ctx, 'state' | 'config'>): Feature[] {
  return currentLicenseKey(ctx).trim() !== '' ? [...PAID_FEATURES] : [];
}

export function requireFeature(ctx: Ctx, feature: Feature): void {
  if (!enabledFeatures(ctx).includes(feature)) throw new HttpError(402, LICENSE_TEXTS[feature]);
}
