// Account linking: make a primary user, link a recipe user to it (core-api.md §3.5, §3.6).
import { commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, ok, status, str } from '../http.js';
import { requireFeature } from '../license.js';
import { CONFLICT_TEXT, findConflict } from '../linking.js';
import { externalId, findUser, putUser, userJson } from '../users.js';

function userOrThrow(ctx: Ctx, id: string) {
  const u = findUser(ctx, id);
  if (!u) throw badRequest('Unknown user ID provided');
  return u;
}

async function createPrimary(ctx: Ctx) {
  const body = ctx.body();
  const u = userOrThrow(ctx, str(body, 'recipeUserId'));
  // The reference core looks the user up before the licence check.
  requireFeature(ctx, 'account_linking');
  if (u.primaryUserId === u.id) return ok({ wasAlreadyAPrimaryUser: true, user: userJson(ctx, u) });
  if (u.primaryUserId) {
    return status('RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR', {
      primaryUserId: externalId(ctx, u.primaryUserId),
      description: 'This user ID is already linked to another user ID',
    });
  }
  const conflict = findConflict(ctx, u, u.tenantIds, undefined);
  if (conflict) {
    return status('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
      primaryUserId: externalId(ctx, conflict.primaryId),
      description: CONFLICT_TEXT[conflict.kind],
    });
  }
  const primary = { ...u, primaryUserId: u.id };
  return commitThen(ctx, [putUser(primary)], () => ok({ wasAlreadyAPrimaryUser: false, user: userJson(ctx, primary) }));
}

async function link(ctx: Ctx) {
  const body = ctx.body();
  const recipeUserId = str(body, 'recipeUserId');
  const primaryUserId = str(body, 'primaryUserId');
  const r = userOrThrow(ctx, recipeUserId);
  const p = userOrThrow(ctx, primaryUserId);
  requireFeature(ctx, 'account_linking');
  if (!p.primaryUserId) return status('INPUT_USER_IS_NOT_A_PRIMARY_USER');
  const primaryId = p.primaryUserId;
  const primary = ctx.state.maps.users.get(primaryId)!;
  if (r.primaryUserId === primaryId) return ok({ accountsAlreadyLinked: true, user: userJson(ctx, primary) });
  if (r.primaryUserId) {
    const other = ctx.state.maps.users.get(r.primaryUserId)!;
    return status('RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
      primaryUserId: externalId(ctx, other.id),
      description: 'The input recipe user ID is already linked to another user ID',
      user: userJson(ctx, other),
    });
  }
  const conflict = findConflict(ctx, r, r.tenantIds, primaryId);
  if (conflict) {
    return status('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
      primaryUserId: externalId(ctx, conflict.primaryId),
      description: CONFLICT_TEXT[conflict.kind],
    });
  }
  return commitThen(ctx, [putUser({ ...r, primaryUserId: primaryId })], () => ok({ accountsAlreadyLinked: false, user: userJson(ctx, primary) }));
}

export const accountLinkingRoutes: Route[] = [
  { path: '/recipe/accountlinking/user/primary', scope: 'app', methods: { POST: createPrimary } },
  { path: '/recipe/accountlinking/user/link', scope: 'app', methods: { POST: link } },
];
