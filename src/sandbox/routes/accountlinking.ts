// Account linking: make a primary user, link a recipe user to it, and the two checks that answer whether either
// would succeed without changing anything (core-api.md §3.5, §3.6; supertokens-core CreatePrimaryUserAPI,
// LinkAccountsAPI, CanCreatePrimaryUserAPI, CanLinkAccountsAPI). The checks need no licence; the writes do.
import { commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, ok, query, status, str, type Reply } from '../http.js';
import { requireFeature } from '../license.js';
import { CONFLICT_TEXT, findConflict } from '../linking.js';
import type { LoginMethod } from '../store/index.js';
import { externalId, findUser, putUser, userJson } from '../users.js';

function userOrThrow(ctx: Ctx, id: string): LoginMethod {
  const u = findUser(ctx, id);
  if (!u) throw badRequest('Unknown user ID provided');
  return u;
}

/** Why `u` cannot become primary (a reply), or undefined when it can; `already` when it is primary. */
function primaryRefusal(ctx: Ctx, u: LoginMethod): Reply | 'already' | undefined {
  if (u.primaryUserId === u.id) return 'already';
  if (u.primaryUserId) {
    return status('RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR', {
      primaryUserId: externalId(ctx, u.primaryUserId),
      description: 'This user ID is already linked to another user ID',
    });
  }
  const conflict = findConflict(ctx, u, u.tenantIds, undefined);
  if (!conflict) return undefined;
  return status('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
    primaryUserId: externalId(ctx, conflict.primaryId),
    description: CONFLICT_TEXT[conflict.kind],
  });
}

async function createPrimary(ctx: Ctx) {
  const u = userOrThrow(ctx, str(ctx.body(), 'recipeUserId'));
  // The reference core looks the user up before the licence check.
  requireFeature(ctx, 'account_linking');
  const refusal = primaryRefusal(ctx, u);
  if (refusal === 'already') return ok({ wasAlreadyAPrimaryUser: true, user: userJson(ctx, u) });
  if (refusal) return refusal;
  const primary = { ...u, primaryUserId: u.id };
  return commitThen(ctx, [putUser(primary)], () => ok({ wasAlreadyAPrimaryUser: false, user: userJson(ctx, primary) }));
}

/** GET /recipe/accountlinking/user/primary/check?recipeUserId= (CanCreatePrimaryUserAPI). */
function canCreatePrimary(ctx: Ctx) {
  const u = userOrThrow(ctx, query(ctx.query, 'recipeUserId'));
  const refusal = primaryRefusal(ctx, u);
  if (refusal === 'already' || refusal === undefined) return ok({ wasAlreadyAPrimaryUser: refusal === 'already' });
  return refusal;
}

type LinkDecision = { reply: Reply } | { already: LoginMethod } | { link: LoginMethod; primary: LoginMethod };

function linkDecision(ctx: Ctx, recipeUserId: string, primaryUserId: string, check: boolean): LinkDecision {
  const r = userOrThrow(ctx, recipeUserId);
  const p = userOrThrow(ctx, primaryUserId);
  if (!check) requireFeature(ctx, 'account_linking');
  if (!p.primaryUserId) return { reply: status('INPUT_USER_IS_NOT_A_PRIMARY_USER') };
  const primary = ctx.state.maps.users.get(p.primaryUserId)!;
  if (r.primaryUserId === primary.id) return { already: primary };
  if (r.primaryUserId) {
    const other = ctx.state.maps.users.get(r.primaryUserId)!;
    const fields: Record<string, unknown> = {
      primaryUserId: externalId(ctx, other.id),
      description: 'The input recipe user ID is already linked to another user ID',
    };
    // The link answers the other primary user too; the check does not (CanLinkAccountsAPI).
    if (!check) fields.user = userJson(ctx, other);
    return { reply: status('RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', fields) };
  }
  const conflict = findConflict(ctx, r, r.tenantIds, primary.id);
  if (conflict) {
    return {
      reply: status('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
        primaryUserId: externalId(ctx, conflict.primaryId),
        description: CONFLICT_TEXT[conflict.kind],
      }),
    };
  }
  return { link: r, primary };
}

async function link(ctx: Ctx) {
  const body = ctx.body();
  const d = linkDecision(ctx, str(body, 'recipeUserId'), str(body, 'primaryUserId'), false);
  if ('reply' in d) return d.reply;
  if ('already' in d) return ok({ accountsAlreadyLinked: true, user: userJson(ctx, d.already) });
  const { link: r, primary } = d;
  return commitThen(ctx, [putUser({ ...r, primaryUserId: primary.id })], () =>
    ok({ accountsAlreadyLinked: false, user: userJson(ctx, primary) }),
  );
}

/** GET /recipe/accountlinking/user/link/check?recipeUserId=&primaryUserId= (CanLinkAccountsAPI). */
function canLink(ctx: Ctx) {
  const d = linkDecision(ctx, query(ctx.query, 'recipeUserId'), query(ctx.query, 'primaryUserId'), true);
  if ('reply' in d) return d.reply;
  return ok({ accountsAlreadyLinked: 'already' in d });
}

export const accountLinkingRoutes: Route[] = [
  { path: '/recipe/accountlinking/user/primary', scope: 'app', methods: { POST: createPrimary } },
  { path: '/recipe/accountlinking/user/link', scope: 'app', methods: { POST: link } },
  { path: '/recipe/accountlinking/user/primary/check', scope: 'app', methods: { GET: canCreatePrimary } },
  { path: '/recipe/accountlinking/user/link/check', scope: 'app', methods: { GET: canLink } },
];
