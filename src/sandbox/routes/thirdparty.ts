// Third-party sign-in-up: create or find the (thirdPartyId, thirdPartyUserId) user of the tenant, update its
// email, mark it verified when told so (core-api.md §3.8).
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
import { FAULT_BODY } from '../faults.js';
import { HttpError, bool, obj, ok, status, str } from '../http.js';
import { findConflict } from '../linking.js';
import { key, type Change, type LoginMethod } from '../store/index.js';
import { requireLoginMethod } from '../tenants.js';
import { externalId, markVerified, newUserId, normaliseEmail, primaryOf, putUser, userJson } from '../users.js';

async function signInUp(ctx: Ctx) {
  const body = ctx.body();
  const thirdPartyId = str(body, 'thirdPartyId');
  const thirdPartyUserId = str(body, 'thirdPartyUserId');
  const emailObj = obj(body, 'email');
  const email = normaliseEmail(str(emailObj, 'id'));
  const isVerified = atLeast(ctx, '4.0') ? bool(emailObj, 'isVerified') : false;
  requireLoginMethod(ctx, 'thirdparty');
  const existingId = ctx.state.tpById.get(key(ctx.app, ctx.tenant, thirdPartyId, thirdPartyUserId));
  const existing = existingId ? ctx.state.maps.users.get(existingId) : undefined;
  const changes: Change[] = [];
  let user: LoginMethod;
  if (existing) {
    user = existing;
    if (existing.email !== email) {
      if (existing.primaryUserId && findConflict(ctx, { email }, existing.tenantIds, primaryOf(ctx, existing).id)) {
        return status('EMAIL_CHANGE_NOT_ALLOWED_ERROR', { reason: 'Email already associated with another primary user.' });
      }
      user = { ...existing, email };
      changes.push(putUser(user));
    }
  } else {
    user = {
      app: ctx.app,
      id: newUserId(),
      recipeId: 'thirdparty',
      tenantIds: [ctx.tenant],
      timeJoined: ctx.now,
      email,
      thirdParty: { id: thirdPartyId, userId: thirdPartyUserId },
    };
    changes.push(putUser(user));
  }
  if (isVerified) {
    if (ctx.fault === 'unverified') {
      // Fault mode `unverified`: ThirdParty.signInUp creates or updates the user (ThirdParty.java:171, its own
      // transactions), then marks the email verified in another (:180-190); that one fails: no flag, 500.
      await ctx.store.commit(changes);
      throw new HttpError(500, FAULT_BODY);
    }
    changes.push(...markVerified(ctx, user.id, email));
  }
  return commitThen(ctx, changes, () => {
    const reply: Record<string, unknown> = { createdNewUser: !existing, user: userJson(ctx, user) };
    if (atLeast(ctx, '4.0')) reply.recipeUserId = externalId(ctx, user.id);
    return ok(reply);
  });
}

export const thirdPartyRoutes: Route[] = [{ path: '/recipe/signinup', scope: 'tenant', methods: { POST: signInUp } }];
