// `--via bulk-staged`, settling what the core's job did, in bulk: its FAILED rows of this run's users (the rows
// with the failure status only, 500 a request), then the core's users read back by listing (GET /users, 500 a
// request), only those who joined in the range of the awaited users' join times: a user holding a staged user's
// first login method with the join time this run gave it was imported by this migration (whatever row did it: a
// batch staged twice, a row the job took again after a restart); one holding it with another join time was there
// before, or came meanwhile: the per-user steps complete it. A write counts when it is read back, so "gone from
// the list" alone proves nothing.
// Invariant: a staged user counts as imported only when read back in the core with the join time this run gave it.
import type { StagedUserRow } from '../../../core-client/import-bodies.js';
import type { CoreClient, CoreUser } from '../../../core-client/types.js';
import { methodKey } from '../bulk/knowledge.js';
import { PRESENT_IN_CORE, redactBulkMessage } from '../bulk/user.js';
import { runUserOf, stagingPages } from './staging-list.js';
import { readUsersSliced, skipGaps, splitPoints, USERS_PAGE } from './slices.js';
import { CONFIRMED, EXISTS, JOB_FAILED, PRESENT, STAGED, type StagedTable } from './table.js';

/** The job's text with the row's password hashes and TOTP secrets taken out (the reference echoes some). */
function rowMessage(row: StagedUserRow): string {
  const totp = (row as unknown as { totpDevices?: Array<{ secretKey?: string }> }).totpDevices ?? [];
  const body = {
    loginMethods: row.loginMethods.map((m) => ({ ...m })),
    totpDevices: totp.map((d) => ({ secretKey: d.secretKey ?? '', period: 30, skew: 1 })),
  };
  return redactBulkMessage(row.errorMessage ?? "failed by the core's bulk-import job", body);
}

/** This run's FAILED rows: a user partly in the core becomes EXISTS, any other failure JOB_FAILED with the job's text. */
export async function scanFailedRows(core: CoreClient, table: StagedTable): Promise<void> {
  if (table.size === 0) return;
  for await (const page of stagingPages(core, 'FAILED')) {
    for (const row of page) {
      const i = runUserOf(table, row);
      if (i === undefined) continue; // not a row of this run
      const state = table.state[i];
      if (state !== STAGED && state !== JOB_FAILED && state !== EXISTS) continue;
      table.failedRows.add(row.id);
      if (PRESENT_IN_CORE.test(row.errorMessage ?? '')) table.setState(i, EXISTS);
      else {
        table.setState(i, JOB_FAILED);
        table.messages.set(i, rowMessage(row));
      }
    }
  }
}

/** Staged users from which the read-back goes in slices at once, and how many (slices.ts). */
const SLICED_FROM = 2_000;
const READ_SLICES = 4;
/** Groups of awaited users the final read-back reads apart at most (skipping the settled users between them). */
const READ_GROUPS = 4;

/**
 * The states a read-back settles: staged (the job may have imported it), partly there (whose import?), and failed
 * by the job (a row of a batch staged twice fails while its twin imported the user).
 */
export const AWAITED = [STAGED, EXISTS, JOB_FAILED] as const;

/**
 * Settle the staged users a page of the core's users holds: CONFIRMED (their first login method with the join time
 * this run gave it, and the core's id when the row's was not known) or PRESENT (held with another join time).
 */
function settlePage(core: CoreClient, table: StagedTable, page: CoreUser[]): void {
  for (const user of page) {
    for (const m of user.loginMethods) {
      const key =
        m.recipeId === 'thirdparty' && m.thirdParty
          ? methodKey({
              recipeId: 'thirdparty',
              tenantIds: [core.tenantId],
              thirdPartyId: m.thirdParty.id,
              thirdPartyUserId: m.thirdParty.userId,
            })
          : m.recipeId === 'passwordless' && m.phoneNumber
            ? methodKey({ recipeId: 'passwordless', tenantIds: [core.tenantId], phoneNumber: m.phoneNumber })
            : methodKey({ recipeId: m.recipeId as 'emailpassword' | 'passwordless', tenantIds: [core.tenantId], email: m.email ?? '' });
      const i = table.find(key);
      if (i === undefined) continue;
      const state = table.state[i];
      if (!isAwaited(state)) continue;
      if (m.timeJoined === table.joined[i]) {
        table.setState(i, CONFIRMED);
        if (!table.hasRowId(i)) table.foundIds.set(i, m.recipeUserId);
      } else table.setState(i, PRESENT);
    }
  }
}

/**
 * Read back the users still awaited (AWAITED): only the core's users who joined from the first to the last of
 * their join times (an imported one has the join time this run gave it; one held with another time inside the
 * range is PRESENT; outside it, it stays as it was: EXISTS goes to the per-user steps, which look it up, STAGED is
 * reported gone, JOB_FAILED failed with the job's words). Nothing is read when none is awaited.
 */
export async function readBack(core: CoreClient, table: StagedTable, onPage?: () => void): Promise<void> {
  // The stretches of join times between the awaited users that hold a page or more of users settled already (by
  // the reads while the job worked) are skipped: each group of awaited users is read on its own, all at once.
  const groups = skipGaps(table.joined.subarray(0, table.size), awaitedJoined(table), READ_GROUPS, USERS_PAGE);
  await Promise.all(groups.map((waiting) => readBackJoined(core, table, waiting, onPage)));
}

/**
 * Read back the core's users who joined from the first to the last of `waiting` (join times), in slices at once;
 * `onPage` after each page is settled.
 */
export async function readBackJoined(
  core: CoreClient,
  table: StagedTable,
  waiting: Float64Array,
  onPage: () => void = () => undefined,
): Promise<void> {
  if (waiting.length === 0) return;
  const { from, to } = joinRange(waiting);
  // The split points: join times of the users still to settle (a million: a sort of 8 MB, well under a second).
  const points = waiting.length >= SLICED_FROM ? splitPoints(waiting, READ_SLICES) : [];
  const expected = sliceCounts(waiting, points);
  const settle = (page: CoreUser[]) => {
    settlePage(core, table, page);
    onPage();
  };
  await readUsersSliced(core, points, settle, undefined, { from, to, expected });
}

/** How many of `joined` each slice holds (from its start to its end, both included: split at `points`). */
function sliceCounts(joined: Float64Array, points: number[]): number[] {
  const counts = new Array<number>(points.length + 1).fill(0);
  for (const t of joined) {
    let k = 0;
    while (k < points.length && t > points[k]!) k++;
    counts[k]!++;
    if (k < points.length && t === points[k]) counts[k + 1]!++; // at a split point: the next slice starts with it
  }
  return counts;
}

/** Whether a user in this state is still awaited (one of AWAITED, without a walk over the list). */
export const isAwaited = (state: number | undefined): boolean => state === STAGED || state === EXISTS || state === JOB_FAILED;

/** The first and the last of some join times. */
export function joinRange(joins: Float64Array): { from: number; to: number } {
  let from = Infinity;
  let to = -Infinity;
  for (const t of joins) {
    if (t < from) from = t;
    if (t > to) to = t;
  }
  return { from, to };
}

/** The join times of the users still awaited, of the table's indexes from `lo` to before `hi` (all by default). */
export function awaitedJoined(table: StagedTable, lo = 0, hi = table.size): Float64Array {
  const out = new Float64Array(Math.max(0, Math.min(hi, table.size) - lo));
  let k = 0;
  for (let i = lo; i < hi && i < table.size; i++) if (isAwaited(table.state[i])) out[k++] = table.joined[i]!;
  return out.subarray(0, k);
}
