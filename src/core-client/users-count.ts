// How many users the client's tenant holds (GET /users/count, one request; AuthRecipe.getUsersCount on the
// reference): what a run decides by the core's size (list it or look users up), what the journal check compares
// with a journal's users, a rollback's pace, and what an operator sees before confirming a write.
import type { CoreClient } from './types.js';

/** The tenant's user count; undefined when the answer has none. Rejects when the request fails. */
export async function usersInTenant(core: CoreClient): Promise<number | undefined> {
  const r = await core.raw({ method: 'GET', path: '/users/count', scope: 'tenant' });
  const count = (JSON.parse(r.text) as { count?: unknown }).count;
  return typeof count === 'number' ? count : undefined;
}
