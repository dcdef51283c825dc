// Where a user id is in use outside the auth recipes, as the reference core's
// UserIdMapping.findNonAuthStoragesWhereUserIdIsUsedOrAssertIfUsed (UserIdMapping.java:617-685) looks, in its
// order: Session (a stored session whose recipe user id is the id: session_info.user_id), UserMetadata (a metadata row, even an emptied one), UserRoles (a role in
// any tenant of the app), EmailVerification (a verified email or a token, Start.isUserIdBeingUsedInNonAuthRecipe
// and EmailVerificationQueries.isUserIdBeingUsedForEmailVerification) and TOTP (any device). Mapping creation and
// removal refuse with `UserId is already in use in <recipe> recipe` unless forced.
import type { Ctx } from './context.js';
import { badRequest } from './http.js';
import { key } from './store/index.js';
import { sessionsOf } from './routes/session-tokens.js';

export type NonAuthRecipe = 'Session' | 'UserMetadata' | 'UserRoles' | 'EmailVerification' | 'TOTP';

type StateCtx = Pick<Ctx, 'app' | 'state'>;

function hasRoles(ctx: StateCtx, userId: string): boolean {
  for (const t of ctx.state.maps.tenants.values()) {
    if (t.app === ctx.app && (ctx.state.maps.userRoles.get(key(ctx.app, t.tenantId, userId))?.roles.length ?? 0) > 0) return true;
  }
  // The public tenant of an app exists without a record of its own.
  return (ctx.state.maps.userRoles.get(key(ctx.app, 'public', userId))?.roles.length ?? 0) > 0;
}

/** The non-auth recipes holding this id, in the reference's order. */
export function nonAuthUses(ctx: StateCtx, userId: string): NonAuthRecipe[] {
  const { state, app } = ctx;
  const out: NonAuthRecipe[] = [];
  if (sessionsOf(ctx).some((s) => s.recipeUserId === userId)) out.push('Session');
  if (state.maps.metadata.has(key(app, userId))) out.push('UserMetadata');
  if (hasRoles(ctx, userId)) out.push('UserRoles');
  if (state.maps.verified.ofUser(app, userId).length > 0 || state.evTokensById.get(key(app, userId)).size > 0)
    out.push('EmailVerification');
  if ((state.maps.totp.get(key(app, userId))?.devices.length ?? 0) > 0) out.push('TOTP');
  return out;
}

/** The 400 of findNonAuthStoragesWhereUserIdIsUsedOrAssertIfUsed(..., true) for the first recipe using the id. */
export function assertNotUsedOutsideAuth(ctx: StateCtx, userId: string): void {
  const used = nonAuthUses(ctx, userId)[0];
  if (used) throw inUse(used);
}

export const inUse = (recipe: NonAuthRecipe) => badRequest(`UserId is already in use in ${recipe} recipe`);
