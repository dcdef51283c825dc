// `--via bulk-staged` at scale, the job's tail: once few of a large run's rows are left in the staging list, the list
// itself says which users the job has taken. Its NEW rows are listed, then its PROCESSING ones (a row claimed
// between the two is seen in one of them; one that left before is out), and every awaited user whose row was in the
// list before the listing began but is in neither is out: imported by the job, or failed (its FAILED row is read at
// the end). Those users are read back while the job does its last claims, whatever order its claims took rows in
// (at a million they take rows of uploads far apart: docs/benchmarks.md), so that when the job takes its last row
// only the rows of its last claims are left to the final read. A listing costs one request for 500 rows left, so it
// is made only when they are few beside the run (early.ts decides when).
// Invariant: a user is read back here only if its row, listed before the listing began, was no longer in the list.
import type { CoreClient } from '../../../core-client/types.js';
import { isAwaited, readBackJoined } from './readback.js';
import { skipGaps, USERS_PAGE } from './slices.js';
import { runUserOf, stagingPages } from './staging-list.js';
import type { StagedTable } from './table.js';

/** Groups of out users a tail read reads apart at most (skipping the stretches of users between them). */
const TAIL_GROUPS = 4;

/**
 * List the rows left (NEW, then PROCESSING) and read back the awaited users of this run whose rows have left the
 * list. Returns how many users it read back (settled or not). Throws when a listing or a read fails (nothing is
 * settled by a failed read; the next look, or the final read, reads them).
 */
export async function readOutOfList(core: CoreClient, table: StagedTable): Promise<number> {
  const listedBefore = table.listedCount;
  const inList = new Uint8Array(table.size);
  for (const status of ['NEW', 'PROCESSING'] as const) {
    for await (const page of stagingPages(core, status)) {
      for (const row of page) {
        const i = runUserOf(table, row);
        if (i !== undefined) inList[i] = 1;
      }
    }
  }
  const out: number[] = [];
  for (let p = 0; p < listedBefore; p++) {
    const i = table.listedAt(p);
    if (isAwaited(table.state[i]) && inList[i] === 0) out.push(table.joined[i]!);
  }
  if (out.length === 0) return 0;
  const joins = Float64Array.from(out);
  const groups = skipGaps(table.joined.subarray(0, table.size), joins, TAIL_GROUPS, USERS_PAGE);
  await Promise.all(groups.map((g) => readBackJoined(core, table, g)));
  return out.length;
}
