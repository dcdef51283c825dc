// `--via bulk-staged`, which of the run's uploads the core's job has taken whole: the read-back with the job
// (early.ts) reads back the users of an upload once none of its rows is NEW or PROCESSING any more, so that a
// read settles what it reads whatever order the job claims rows in. On the reference the order is not the upload's
// once the job has removed rows while later uploads land: PostgreSQL puts new rows where removed ones were, and the
// claim (no ORDER BY: postgresql plugin v9.4.2 BulkImportQueries.java getBulkImportUsersAndChangeStatusToProcessing)
// takes them from there; at a million users, measured, a claim of 8,000 took rows of uploads 20 apart
// (docs/benchmarks.md). The staging list is listed newest first (created_at DESC, id DESC) from a token
// "<id>;<created_at>" (BulkImportQueries.java getBulkImportUsers; BulkImportUserPaginationToken.java), so a made
// token at an upload's last created_at and one row of a status answer "the newest row in that status at or before
// it": one request per upload that still has rows in that status (and one more) tells every upload that has none.
// Each upload's last created_at is the core's own (its newest row, asked for once its answer is in). NEW is asked
// before PROCESSING (a row goes NEW -> PROCESSING -> out), and an upload counts free of PROCESSING only once it
// was free of NEW before. An upload is never "out" on a guess: any row the probe cannot place (a window not known,
// two uploads in the same millisecond, rows listed outside an upload) turns the probe off for the run, and the
// read-back with the job goes by the list's counts as before.
// Invariant: an upload is taken whole only when none of its rows is NEW or PROCESSING at its own last created_at.
import type { BulkImportStatus } from '../../../core-client/import-bodies.js';
import type { CoreClient } from '../../../core-client/types.js';
import { rowJoined, stagedKey } from './staging-list.js';
import type { StagedTable } from './table.js';
import { tokenAt } from './slices.js';

const FREE_OF_NEW = 1;
const OUT = 2;

export class ListedBatches {
  /** Listed rows (table.listedCount) after each upload. */
  readonly ends: number[] = [];
  /** The core's created_at of each upload's newest row. */
  private readonly created: number[] = [];
  private readonly state: number[] = [];
  /** Uploads below this are out (the job took every row of them). */
  outPrefix = 0;
  /** The probe cannot tell uploads apart here: the read-back goes by the counts. */
  off = false;

  constructor(
    private readonly core: CoreClient,
    private readonly table: StagedTable,
  ) {}

  /** Listed rows before upload `k`. */
  start(k: number): number {
    return k === 0 ? 0 : this.ends[k - 1]!;
  }

  /** An upload was answered, `placed` rows: the table's last listed ones. Its last created_at is asked for. */
  async uploaded(placed: number): Promise<void> {
    const table = this.table;
    const end = table.listedCount;
    if (this.off || placed === 0) return;
    const page = await this.core.bulkImport.listUsers({ limit: 1 }).catch(() => undefined);
    const row = page?.users[0];
    // The newest row is one of this upload's (its rows are listed in the table's order; rows of one millisecond
    // come by id, not in the upload's order).
    const i = row?.loginMethods?.length ? table.find(stagedKey(row)) : undefined;
    const first = end - placed;
    const ours =
      i !== undefined && first >= 0 && i >= table.listedAt(first) && i <= table.listedAt(end - 1) && rowJoined(row!) === table.joined[i];
    // Rows listed outside the uploads (found staged by an earlier run), another client's row on top, or two uploads
    // in one millisecond: the uploads cannot be told apart by created_at.
    if (!row || !ours || row.createdAt <= (this.created.at(-1) ?? -Infinity) || end - (this.ends.at(-1) ?? 0) !== placed) {
      this.off = true;
      return;
    }
    this.ends.push(end);
    this.created.push(row.createdAt);
    this.state.push(0);
  }

  /** The upload whose window holds `createdAt` (after the one before's last row, up to its own). */
  private batchOf(createdAt: number): number {
    let lo = 0;
    let hi = this.created.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.created[mid]! < createdAt) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Ask the list which uploads have no row left waiting; the uploads found out by this probe (ascending). Up to one
   * request per upload still holding rows of a status, plus one per status.
   */
  async probe(): Promise<number[]> {
    if (this.off || this.created.length === 0) return [];
    await this.walk(
      'NEW',
      (k) => this.state[k] === 0,
      (k) => (this.state[k] = FREE_OF_NEW),
    );
    const newlyOut: number[] = [];
    await this.walk(
      'PROCESSING',
      (k) => this.state[k] === FREE_OF_NEW,
      (k) => {
        this.state[k] = OUT;
        newlyOut.push(k);
      },
    );
    while (this.outPrefix < this.state.length && this.state[this.outPrefix] === OUT) this.outPrefix++;
    return newlyOut.sort((a, b) => a - b);
  }

  /**
   * From the newest upload down: the newest row of `status` at or before upload k's last row tells that every
   * upload after that row's one up to k has none; `open(k)` says whether upload k is still in question, `free(k)`
   * marks it free of `status`.
   */
  private async walk(status: BulkImportStatus, open: (k: number) => boolean, free: (k: number) => void): Promise<void> {
    let k = this.highestOpen(this.created.length - 1, open);
    while (k >= 0) {
      const page = await this.core.bulkImport.listUsers({ status, limit: 1, paginationToken: tokenAt(this.created[k]!) });
      const row = page.users[0];
      const holder = row ? this.batchOf(row.createdAt) : -1;
      for (let j = holder + 1; j <= k; j++) if (open(j)) free(j);
      if (holder < 0) return;
      k = this.highestOpen(holder - 1, open);
    }
  }

  private highestOpen(from: number, open: (k: number) => boolean): number {
    let k = from;
    while (k >= 0 && !open(k)) k--;
    return k;
  }
}
