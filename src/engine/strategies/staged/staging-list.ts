// `--via bulk-staged`: the core's staging list (POST /bulk-import/users holds users there until its job imports
// them). A row is known by the key of its first login method (strategies/bulk/knowledge.ts), not by an id the journal could
// hold: the row's id is only known once the upload answers, so a run killed between the upload and that answer
// still finds its rows. The list is read 500 rows a request; a snapshot keeps only each row's key, status, join
// time and id (its body holds password hashes, which never leave the page being read).
// Invariant: a row's body (it holds password hashes) never leaves the page being read; a snapshot keeps key, status,
// join time and id.
import type { BulkImportStatus, BulkUserBody, StagedUserRow } from '../../../core-client/import-bodies.js';
import type { CoreClient } from '../../../core-client/types.js';
import { methodKey } from '../bulk/knowledge.js';
import { StagedTable } from './table.js';

/** The identity of a bulk user in the staging list: its first login method's tenant, recipe and account info. */
export function stagedKey(body: Pick<BulkUserBody, 'loginMethods'>): string {
  return methodKey(body.loginMethods[0]!);
}

export const LIST_LIMIT = 500;
export const REMOVE_LIMIT = 500;

/** The rows of the staging list, page by page (newest first), optionally of one status. */
export async function* stagingPages(core: CoreClient, status?: BulkImportStatus): AsyncIterable<StagedUserRow[]> {
  let token: string | undefined;
  do {
    const page = await core.bulkImport.listUsers({ limit: LIST_LIMIT, paginationToken: token, ...(status ? { status } : {}) });
    yield page.users;
    token = page.nextPaginationToken;
  } while (token);
}

const STATUS_CODE: Record<BulkImportStatus, number> = { NEW: 1, PROCESSING: 2, FAILED: 3 };

/** The first login method's join time of a staged row (what the core's job will give it). */
export const rowJoined = (row: StagedUserRow): number => row.loginMethods?.[0]?.timeJoinedInMSSinceEpoch ?? -1;

/** The table index of the run's user a staged row is for (its key, with the join time the run gave it), else undefined. */
export function runUserOf(table: StagedTable, row: StagedUserRow): number | undefined {
  if (!row.loginMethods?.length) return undefined;
  const i = table.find(stagedKey(row));
  return i !== undefined && rowJoined(row) === table.joined[i] ? i : undefined;
}

/** What the staging list held when read: per key, the row's status, join time and id (and a FAILED row's message). */
export class StagingSnapshot {
  private readonly rows = new StagedTable();
  private readonly failedIds = new Map<number, string>();
  /** Rows per status, every row (this run's or not). */
  readonly counts: Record<BulkImportStatus, number> = { NEW: 0, PROCESSING: 0, FAILED: 0 };

  static async read(core: CoreClient): Promise<StagingSnapshot> {
    const snap = new StagingSnapshot();
    for await (const page of stagingPages(core)) for (const row of page) snap.add(row);
    return snap;
  }

  add(row: StagedUserRow): void {
    this.counts[row.status] = (this.counts[row.status] ?? 0) + 1;
    if (!row.loginMethods?.length) return;
    const i = this.rows.add(stagedKey(row), rowJoined(row), STATUS_CODE[row.status]);
    this.rows.setRowId(i, row.id);
    if (row.status === 'FAILED') {
      this.failedIds.set(i, row.id);
      if (row.errorMessage !== undefined) this.rows.messages.set(i, row.errorMessage);
    } else this.failedIds.delete(i);
  }

  get(key: string): { status: BulkImportStatus; joined: number; id: string } | undefined {
    const i = this.rows.find(key);
    if (i === undefined) return undefined;
    const code = this.rows.state[i]!;
    const status = code === 1 ? 'NEW' : code === 2 ? 'PROCESSING' : 'FAILED';
    return { status, joined: this.rows.joined[i]!, id: this.failedIds.get(i) ?? this.rows.rowId(i) ?? '' };
  }
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
