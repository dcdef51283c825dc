// Core endpoints: /hello (and /), /apiversion, PUT /recipe/user (dispatched on the rid header as the
// reference core does), and the test-only clock hook.
import { CDI_VERSIONS } from '../config.js';
import type { Ctx, Route } from '../context.js';
import { HttpError, int, json, ok, text } from '../http.js';
import { updateEmailPasswordUser } from './emailpassword.js';
import { updatePasswordlessUser } from './passwordless.js';

const hello = () => text('Hello');

function apiVersion() {
  return json({ versions: CDI_VERSIONS });
}

/**
 * RecipeRouter: `rid: passwordless` reaches the passwordless update, `rid: thirdparty` the third-party user
 * API (which has no PUT), and a missing or unknown rid falls back to email-password.
 */
function putUser(ctx: Ctx) {
  const raw = ctx.headers['rid'];
  const rid = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (rid === 'passwordless') return updatePasswordlessUser(ctx);
  if (rid === 'thirdparty') throw new HttpError(405, 'Method not supported');
  return updateEmailPasswordUser(ctx);
}

function advanceClock(ctx: Ctx) {
  if (!ctx.config.testHooks) throw new HttpError(404, 'Not found');
  ctx.config.clockOffsetMs += int(ctx.body(), 'advanceMs');
  return ok({ now: ctx.config.now() });
}

/**
 * Tests only: the bulk-import job takes `claims` more claims and then waits before its next one (`{"claims": 0}`
 * holds it at once); without `claims` it goes on unheld.
 */
function holdBulkImport(ctx: Ctx) {
  if (!ctx.config.testHooks) throw new HttpError(404, 'Not found');
  const claims = (ctx.body() as { claims?: unknown }).claims;
  if (claims === undefined || claims === null) delete ctx.config.bulkImportClaimsLeft;
  else ctx.config.bulkImportClaimsLeft = int(ctx.body(), 'claims');
  return ok({ claimsLeft: ctx.config.bulkImportClaimsLeft ?? null });
}

export const coreRoutes: Route[] = [
  { path: '/', scope: 'tenant', versioned: false, apiKey: false, methods: { GET: hello, POST: hello, PUT: hello, DELETE: hello } },
  { path: '/hello', scope: 'tenant', versioned: false, apiKey: false, methods: { GET: hello, POST: hello, PUT: hello, DELETE: hello } },
  { path: '/apiversion', scope: 'app', versioned: false, methods: { GET: apiVersion } },
  { path: '/recipe/user', scope: 'app', methods: { PUT: putUser } },
  { path: '/sandbox-test/clock', scope: 'app', methods: { POST: advanceClock } },
  { path: '/sandbox-test/bulk-import-hold', scope: 'app', methods: { POST: holdBulkImport } },
];
