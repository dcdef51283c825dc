// `--via bulk-staged`, reading a large core back in parallel slices. GET /users answers 500 users a request, each page
// naming the next, so one reader of a million users waits for 2,000 answers in a row. The core's pagination token is
// the last user's id and join time (supertokens-core v11.4.4 UserPaginationToken.java: base64 of
// "<userId>;<timeJoined>"; the next page in ascending order holds users joined later, or at that time with a smaller or
// equal id: postgresql plugin v9.4.2 GeneralQueries.java, getPaginatedPrimaryUserIds), so a token made of a join time T
// and the highest id starts a reader at T. The slices split at join times; each reads until it is past its end. Users
// at a boundary are read by both neighbours, which settling does not mind (readback.ts). A core that refuses a made
// token (HTTP 400) is read in one pass.
// Invariant: together the slices read every user of the core at least once.
import { CoreHttpError } from '../../../core-client/errors.js';
import type { CoreClient, CoreUser } from '../../../core-client/types.js';

/** Users a GET /users page holds at most (the reference's AuthRecipe.USER_PAGINATION_LIMIT). */
export const USERS_PAGE = 500;

/** Higher than any SuperTokens user id (a lower-case UUID), in any collation. */
const HIGHEST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/**
 * The token of a page that begins with the users who joined at `t` (ascending order); the staging list's tokens have
 * the same form, "<id>;<created_at>" (batches.ts).
 */
export const tokenAt = (t: number): string => Buffer.from(`${HIGHEST_ID};${Math.trunc(t)}`).toString('base64');

/**
 * Split points for a core whose users are not known yet: from its oldest and newest join times (two requests),
 * evenly in time; none when one page holds them all.
 */
export async function splitCore(core: CoreClient, slices: number, pageSize = USERS_PAGE): Promise<number[]> {
  const first = await core.listUsers({ limit: pageSize });
  if (!first.nextPaginationToken || slices < 2) return [];
  const last = await core.listUsers({ limit: 1, timeJoinedOrder: 'DESC' });
  const from = first.users[0]?.timeJoined;
  const to = last.users[0]?.timeJoined;
  if (from === undefined || to === undefined || to <= from) return [];
  const points: number[] = [];
  for (let k = 1; k < slices; k++) points.push(Math.floor(from + ((to - from) * k) / slices));
  return points;
}

/** Up to `slices - 1` join times splitting `joined` (any order) into parts of about the same size. */
export function splitPoints(joined: Float64Array, slices: number): number[] {
  if (slices < 2 || joined.length < slices) return [];
  const sorted = Float64Array.from(joined).sort();
  const points: number[] = [];
  for (let k = 1; k < slices; k++) {
    const t = sorted[Math.floor((k * sorted.length) / slices)]!;
    if (t >= 0 && t !== points.at(-1)) points.push(t);
  }
  return points;
}

/**
 * `waiting` (join times, any order) in up to `parts` groups, split where at least `minGap` of `all` (the join times of
 * every user the caller knows of, `waiting` among them) lie strictly between two neighbours of `waiting`, the widest
 * such gaps first: a read of each group from its first to its last join time skips the known users of the gaps. A
 * few users left awaited far from the rest (a claim's first rows taken with the claim before) do not make the read
 * span everything between them.
 */
export function skipGaps(all: Float64Array, waiting: Float64Array, parts: number, minGap: number): Float64Array[] {
  if (waiting.length < 2 || parts < 2) return [waiting];
  const known = Float64Array.from(all).sort();
  const sorted = Float64Array.from(waiting).sort();
  /** How many of `known` are below `t` (or at most `t` when `orAt`). */
  const rank = (t: number, orAt: boolean): number => {
    let lo = 0;
    let hi = known.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (known[mid]! < t || (orAt && known[mid] === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const gaps: Array<{ at: number; users: number }> = [];
  for (let k = 1; k < sorted.length; k++) {
    if (sorted[k] === sorted[k - 1]) continue;
    const users = rank(sorted[k]!, false) - rank(sorted[k - 1]!, true);
    if (users >= minGap) gaps.push({ at: k, users });
  }
  const cuts = gaps
    .sort((a, b) => b.users - a.users)
    .slice(0, parts - 1)
    .map((g) => g.at)
    .sort((a, b) => a - b);
  return [0, ...cuts].map((from, k) => sorted.subarray(from, cuts[k] ?? sorted.length));
}

/**
 * Every user of the client's tenant, in slices read at once (split at `points`, ascending join times), each page
 * handed to `onPage` (from any slice, in no particular order; a user at a split point may come twice). With `range`,
 * only the users who joined from `range.from` to `range.to` (and the rest of the page that passes `to`).
 */
export async function readUsersSliced(
  core: CoreClient,
  points: number[],
  onPage: (users: CoreUser[]) => void,
  limit = USERS_PAGE,
  range?: { from: number; to: number; expected?: number[] },
): Promise<void> {
  if (points.length > 0) {
    try {
      await core.listUsers({ limit: 1, paginationToken: tokenAt(points[0]!) });
    } catch (err) {
      if (!(err instanceof CoreHttpError && err.status === 400)) throw err;
      points = []; // a core whose tokens are not "<id>;<time>": one pass over every user
      range = undefined;
    }
  } else if (range) {
    // One reader from the range's start, without a probe: a core that refuses the made token (its first page) is
    // read in one pass over every user.
    try {
      return await readFrom(core, tokenAt(range.from), range.to, onPage, limit, false, range.expected?.[0]);
    } catch (err) {
      if (!(err instanceof CoreHttpError && err.status === 400)) throw err;
      return readFrom(core, undefined, undefined, onPage, limit);
    }
  }
  const starts: Array<number | undefined> = [range?.from, ...points];
  await Promise.all(
    // Each slice ends with the users who joined at the next one's start (which reads them too).
    starts.map((start, k) =>
      readFrom(
        core,
        start === undefined ? undefined : tokenAt(start),
        points[k] ?? range?.to,
        onPage,
        limit,
        k < points.length,
        range?.expected?.[k],
      ),
    ),
  );
}

/**
 * Pages from `token` (the first page without one) until one passes `end` (every page to the last without one), or
 * reaches it when `endRead` (the next slice starts there and reads the users who joined at `end`). `expected`: the
 * users the caller knows are there (to `end`, inclusive): the page after them asks for one user only, which is past
 * the end unless the core holds others there (then full pages again), instead of a full page past the end.
 */
async function readFrom(
  core: CoreClient,
  token: string | undefined,
  end: number | undefined,
  onPage: (users: CoreUser[]) => void,
  limit: number,
  endRead = false,
  expected?: number,
): Promise<void> {
  let left = end === undefined ? undefined : expected;
  for (;;) {
    const size = left !== undefined && left + 1 < limit ? left + 1 : limit;
    const page = await core.listUsers({ limit: size, ...(token ? { paginationToken: token } : {}) });
    const past = end === undefined ? -1 : page.users.findIndex((u) => u.timeJoined > end);
    const within = past < 0 ? page.users : page.users.slice(0, past);
    onPage(within);
    if (left !== undefined) left = within.length > left ? undefined : left - within.length;
    token = page.nextPaginationToken;
    const last = page.users.at(-1)?.timeJoined;
    if (past >= 0 || !token || (endRead && end !== undefined && last !== undefined && last >= end)) return;
  }
}

/**
 * The users who joined from `from` on, in `slices` readers at once split evenly over the next `span` ms (the last
 * reads to the newest): the steps path's refresh of what the core holds (strategies/steps/knowledge.ts). `limit`: the
 * users a page (a reader's page past its slice's end lists users the next reader lists too). Rejects with the core's
 * HTTP 400 when it refuses a made token.
 */
export async function readSince(
  core: CoreClient,
  from: number,
  span: number,
  slices: number,
  onPage: (users: CoreUser[]) => void,
  limit = USERS_PAGE,
): Promise<void> {
  const starts = Array.from({ length: Math.max(1, slices) }, (_, k) => Math.floor(from + (span * k) / Math.max(1, slices)));
  await Promise.all(starts.map((start, k) => readFrom(core, tokenAt(start), starts[k + 1], onPage, limit, k + 1 < starts.length)));
}
