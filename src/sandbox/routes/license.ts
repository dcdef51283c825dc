// Licence endpoints: PUT/GET/DELETE /ee/license and GET /ee/featureflag, with the sandbox's licence rule.
import type { Ctx, Route } from '../context.js';
import { ok, status, str } from '../http.js';
import { currentLicenseKey, enabledFeatures } from '../license.js';

async function putLicense(ctx: Ctx) {
  const licenseKey = str(ctx.body(), 'licenseKey', true) ?? currentLicenseKey(ctx);
  if (licenseKey.trim() === '') return status('INVALID_LICENSE_KEY_ERROR');
  await ctx.store.commit([{ c: 'meta', k: 'license', v: { value: licenseKey.trim() } }]);
  return ok();
}

function getLicense(ctx: Ctx) {
  const licenseKey = currentLicenseKey(ctx);
  return licenseKey ? ok({ licenseKey }) : status('NO_LICENSE_KEY_FOUND_ERROR');
}

async function deleteLicense(ctx: Ctx) {
  await ctx.store.commit([{ c: 'meta', k: 'license', v: { value: '' } }]);
  return ok();
}

function featureFlag(ctx: Ctx) {
  return ok({ features: enabledFeatures(ctx), usageStats: {} });
}

export const licenseRoutes: Route[] = [
  { path: '/ee/license', scope: 'app', methods: { PUT: putLicense, GET: getLicense, DELETE: deleteLicense } },
  { path: '/ee/featureflag', scope: 'app', methods: { GET: featureFlag } },
];
