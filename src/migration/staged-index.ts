// `--via bulk-staged`: which of this run's users sit in the core's staging list (POST /bulk-import/users), found
// by the account info of their first login method (the staged answer's ids cannot be known before the upload, so a
// run killed between the upload and its journal line still finds its rows). Reads every row, 500 per request.
import type { BulkLoginMethodBody, BulkUserBody, StagedUserRow } from '../core-client/bulk-types.js';
import type { CoreClient } from '../core-client/types.js';

/** The identity of a bulk user in the staging list: its first login method's recipe and account info. */
export function stagedKey(body: Pick<BulkUserBody, 'loginMethods'>): string {
  return methodKey(body.loginMethods[0]!);
}

function methodKey(m: BulkLoginMethodBody): string {
  const tenant = m.tenantIds?.[0] ?? 'public';
  if (m.recipeId === 'thirdparty') return `${tenant}|tp|${m.thirdPartyId}|${m.thirdPartyUserId}`;
  if (m.recipeId === 'passwordless' && m.phoneNumber !== undefined) return `${tenant}|pl-phone|${m.phoneNumber}`;
  return `${tenant}|${m.recipeId}|${(m.email ?? '').trim().toLowerCase()}`;
}

export const LIST_LIMIT = 500;
export const REMOVE_LIMIT = 500;

/** Every staged row (NEW, PROCESSING and FAILED) by key; the counts per status (every row, ours or not). */
export async function readStaging(core: CoreClient): Promise<{ rows: Map<string, StagedUserRow>; counts: Record<string, number> }> {
  const rows = new Map<string, StagedUserRow>();
  const counts: Record<string, number> = { NEW: 0, PROCESSING: 0, FAILED: 0 };
  let token: string | undefined;
  do {
    const page = await core.bulkImport.listUsers({ limit: LIST_LIMIT, paginationToken: token });
    for (const row of page.users) {
      counts[row.status] = (counts[row.status] ?? 0) + 1;
      if (row.loginMethods?.length) rows.set(stagedKey(row), row);
    }
    token = page.nextPaginationToken;
  } while (token);
  return { rows, counts };
}

/** Remove staged rows by id, 500 per request; the ids the core removed. */
export async function removeStaged(core: CoreClient, ids: string[]): Promise<string[]> {
  const removed: string[] = [];
  for (let i = 0; i < ids.length; i += REMOVE_LIMIT) {
    const r = await core.bulkImport.removeUsers(ids.slice(i, i + REMOVE_LIMIT));
    removed.push(...r.deletedIds);
  }
  return removed;
}
