// Taking users and links back out of the core, as the reference core 11.4.4 does it (what `auth-migrate rollback`
// calls): POST /user/remove (DeleteUserAPI.java:51-79: the id resolved as ANY, so a supertokens id or a mapped
// external id; an unknown id answers OK and removes nothing; removeAllLinkedAccounts defaults to true; the removal
// itself is deletion.ts) and POST /recipe/accountlinking/user/unlink (UnlinkAccountAPI.java, AuthRecipe.unlinkAccounts,
// AuthRecipe.java:69-123: no licence check; wasLinked is true for any primary user, even alone). Mapping removal is
// in useridmapping.ts.
import { commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, bool, ok, str } from '../http.js';
import { DeletionTx, resolveAny } from '../deletion.js';

async function removeUser(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const all = bool(body, 'removeAllLinkedAccounts', true) ?? true;
  const found = resolveAny(ctx, userId);
  // DeleteUserAPI.java:72-74: UnknownUserIdException, "Do nothing".
  if (!found) return ok();
  const tx = new DeletionTx(ctx);
  tx.deleteUser(userId, all, found.mapping);
  return tx.changes.length > 0 ? commitThen(ctx, tx.changes, () => ok()) : ok();
}

async function unlink(ctx: Ctx) {
  const recipeUserId = str(ctx.body(), 'recipeUserId');
  const found = resolveAny(ctx, recipeUserId);
  if (!found) throw badRequest('Unknown user ID provided');
  const id = found.mapping?.superTokensUserId ?? recipeUserId;
  const tx = new DeletionTx(ctx);
  const group = tx.groupOf(id);
  if (!group) throw badRequest('Unknown user ID provided');
  if (!group.isPrimary) return ok({ wasRecipeUserDeleted: false, wasLinked: false });
  let deleted = false;
  if (group.primaryId !== id) {
    const { primaryUserId: _, ...unlinked } = tx.user(id)!;
    tx.put(unlinked);
  } else if (group.methods.length > 1) {
    // Two users with one id would be a broken state: the primary's own login method is removed instead, and
    // the others keep its id as their primary id (AuthRecipe.java:96-104).
    tx.deleteUser(id, false, tx.mappingOf(id));
    deleted = true;
  } else {
    const own = tx.user(id)!;
    if (!own.ghost) {
      const { primaryUserId: _, ...alone } = own;
      tx.put(alone);
    }
  }
  const reply = () => ok({ wasRecipeUserDeleted: deleted, wasLinked: true });
  return tx.changes.length > 0 ? commitThen(ctx, tx.changes, reply) : reply();
}

export const removalRoutes: Route[] = [
  { path: '/user/remove', scope: 'app', methods: { POST: removeUser } },
  { path: '/recipe/accountlinking/user/unlink', scope: 'app', methods: { POST: unlink } },
];
