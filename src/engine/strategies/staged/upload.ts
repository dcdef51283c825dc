// `--via bulk-staged`, the upload: one batch to POST /bulk-import/users, written ahead in the journal (each user's
// `staged` line is on disk before the request leaves), sent without the client's retries (a retried upload whose
// first answer was lost would stage the batch twice). A refused batch names its invalid users by index: they fail
// with the core's messages (secrets taken out) and the rest is sent again. An upload without a clear answer is
// looked for before it is sent again: a batch is staged whole or not at all, so one of its rows in the list (or,
// once the job took them, one of its users in the core with its join time) means all of it is there.
// Invariant: every user's `staged` line is on the disk before the upload leaves, and a batch is never uploaded twice.
import type { BulkUserBody, RefusedBatch, StagedUserAnswer } from '../../../core-client/import-bodies.js';
import { CoreClientError, CoreHttpError, CoreProtocolError, CoreUnreachableError } from '../../../core-client/errors.js';
import type { CoreClient } from '../../../core-client/types.js';
import { bulkRoles } from '../bulk/plan.js';
import { ensureRoles, findBulkMethod, redactBulkMessage } from '../bulk/user.js';
import type { Admitted, EngineContext } from '../../strategy.js';
import { rowJoined, stagedKey, stagingPages } from './staging-list.js';
import { STAGED, type StagedTable } from './table.js';

/** The journal step (and report step) of a staged user. */
export const STAGED_STEP = 'bulk-staged';

/** Uploads of one batch without a clear answer before the run stops. */
export const MAX_UPLOAD_ATTEMPTS = 4;

/** A user to stage: its bulk body, the key of its first login method and the join time that identifies it. */
export interface ToStage {
  user: Admitted;
  body: BulkUserBody;
  key: string;
  joined: number;
}

const NO_RETRY = { retries: 0, baseDelayMs: 0, maxDelayMs: 0 };

/** An attempt whose outcome is unknown: the core may or may not have staged the batch. */
const unclear = (err: unknown): boolean =>
  err instanceof CoreProtocolError ||
  (err instanceof CoreUnreachableError && !/^HTTP 4/.test(err.reason)) ||
  (err instanceof CoreHttpError && !err.fatal && err.status >= 500);

/**
 * Stage `batch`: every user ends in `table` as STAGED (told to `onStaged`), or refused (through `refuse`).
 * Fatal client errors, and uploads that stay unclear, propagate.
 */
export async function stageBatch(
  ctx: EngineContext,
  table: StagedTable,
  batch: ToStage[],
  onStaged: (n: number) => void,
  refuse: (s: ToStage, message: string) => Promise<void>,
): Promise<void> {
  // Write-ahead: whatever happens to the request, the journal already names every user it may stage.
  for (const s of batch) {
    if (s.user.journalled?.staged !== s.joined) ctx.journal.append({ type: 'staged', user: s.user.input.record.id, joined: s.joined });
  }
  await ctx.journal.flush();
  await ensureRoles(ctx.core, [...new Set(batch.flatMap((s) => bulkRoles(s.body)))]);
  const once = ctx.core.withRetry(NO_RETRY);
  let rest = batch;
  for (let attempt = 1; rest.length > 0; attempt++) {
    let answer: { users?: StagedUserAnswer[] };
    try {
      answer = await once.bulkImport.addUsers(rest.map((s) => s.body));
    } catch (err) {
      if (err instanceof CoreHttpError && !err.fatal && err.status === 400) {
        const refused = parseRefusal(err.body);
        if (!refused) throw new CoreClientError(`the core refused a batch of ${rest.length} users: ${err.body.slice(0, 300)}`, true);
        const bad = new Map(refused.users.map((u) => [u.index, u.errors]));
        for (const [index, errors] of bad) await refuse(rest[index]!, redactBulkMessage(errors.join('; '), rest[index]!.body));
        rest = rest.filter((_, i) => !bad.has(i));
        continue;
      }
      if (!unclear(err)) throw err;
      if (attempt >= MAX_UPLOAD_ATTEMPTS) {
        throw new CoreClientError(
          `the core gave no clear answer to ${MAX_UPLOAD_ATTEMPTS} uploads of the same ${rest.length} users (last: ${(err as Error).message}); ` +
            'stopping: the next run finds whatever they staged',
          true,
        );
      }
      // Look before sending again: the batch may be in the list (or imported already) despite the lost answer.
      const there = await lookAwhile(ctx, table, rest, err);
      if (there) {
        for (const s of rest) place(ctx, table, s, there.get(s.key));
        onStaged(rest.length);
        rest = [];
      } else await ctx.sleep(250 * attempt);
      continue;
    }
    // No answer believed on its word (issue 31): an OK that does not list this batch's users (a proxy's bare OK,
    // another upload's body) is looked for in the list like a lost answer, and the batch sent again if absent.
    if (!namesBatch(answer, rest)) {
      const there = await lookForBatch(ctx.core, table, rest);
      if (!there) {
        if (attempt >= MAX_UPLOAD_ATTEMPTS) {
          throw new CoreClientError(
            `the core answered ${MAX_UPLOAD_ATTEMPTS} uploads of the same ${rest.length} users with an OK that lists other users, ` +
              'and staged none of them: is a proxy in front of it answering for it? Stopping: the next run finds whatever they staged',
            true,
          );
        }
        await ctx.sleep(250 * attempt);
        continue;
      }
      for (const s of rest) place(ctx, table, s, there.get(s.key));
    } else for (const [i, s] of rest.entries()) place(ctx, table, s, answer.users?.[i]?.loginMethods?.[0]?.userId);
    onStaged(rest.length);
    rest = [];
  }
}

/**
 * Looks at increasing intervals for at most this long after an upload timed out before it is sent again: the core
 * may still be storing it (its rows appear only when its transaction commits): on a loaded machine the reference on
 * PostgreSQL answers a 10,000-user upload in minutes, and one sent again after the client's timeout staged every
 * user twice (the job then failed each twin; docs/benchmarks.md).
 */
const TIMED_OUT_LOOK_MS = 240_000;

/** The batch looked for once; after a timeout, again at 1, 2, 4 ... s until found or TIMED_OUT_LOOK_MS has passed. */
async function lookAwhile(ctx: EngineContext, table: StagedTable, rest: ToStage[], err: unknown): Promise<Map<string, string> | undefined> {
  const timedOut = err instanceof CoreUnreachableError && /timeout/i.test(err.reason);
  const until = Date.now() + (timedOut ? TIMED_OUT_LOOK_MS : 0);
  for (let wait = 1000; ; wait *= 2) {
    const there = await lookForBatch(ctx.core, table, rest);
    if (there || Date.now() >= until || ctx.isStopping()) return there;
    await ctx.sleep(Math.min(wait, until - Date.now()));
  }
}

/** Whether the upload's answer lists these users, in order: as many, the same kinds of login, the external ids sent. */
function namesBatch(answer: { users?: StagedUserAnswer[] }, batch: ToStage[]): boolean {
  const users = answer.users;
  if (!Array.isArray(users) || users.length !== batch.length) return false;
  return batch.every((s, i) => {
    const u = users[i];
    const methods = s.body.loginMethods;
    if (!u || !Array.isArray(u.loginMethods) || u.loginMethods.length !== methods.length) return false;
    if (s.body.externalUserId !== undefined && u.userId !== s.body.externalUserId) return false;
    return methods.every((m, j) => u.loginMethods[j]?.recipeId === m.recipeId);
  });
}

function place(ctx: EngineContext, table: StagedTable, s: ToStage, rowId: string | undefined): void {
  // Settled only after the job and the read-back: its fingerprint is noted again then (results.ts).
  ctx.fingerprints.forget(s.user.input.record.id);
  const i = table.add(s.key, s.joined, STAGED);
  table.markListed(i);
  table.setRowId(i, rowId);
  if (table.inputs) table.inputs[i] = s.user.input;
}

/**
 * Whether a batch whose upload lost its answer is staged: its rows (the newest of this run's in the list) by key
 * and join time, with their ids; or, none being there, its first user in the core with its join time (the job
 * took the batch already). Undefined when it is not staged.
 */
async function lookForBatch(core: CoreClient, table: StagedTable, rest: ToStage[]): Promise<Map<string, string> | undefined> {
  const want = new Map(rest.map((s) => [s.key, s.joined]));
  const found = new Map<string, string>();
  for await (const page of stagingPages(core)) {
    let older = false;
    for (const row of page) {
      if (!row.loginMethods?.length) continue;
      const key = stagedKey(row);
      if (want.get(key) === rowJoined(row)) found.set(key, row.id);
      else if (!want.has(key) && table.find(key) !== undefined) older = true; // an earlier upload of this run
    }
    if (found.size > 0 || older) break;
  }
  if (found.size > 0) return found;
  const first = rest[0]!;
  const m = first.body.loginMethods[0]!;
  const id = await findBulkMethod(core, m);
  if (id === undefined) return undefined;
  const user = await core.getUserById(id);
  const joined = user.status === 'OK' ? user.user.loginMethods.map((lm) => lm.timeJoined) : [];
  return joined.includes(first.joined) ? found : undefined;
}

function parseRefusal(text: string): RefusedBatch | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<RefusedBatch>;
    return Array.isArray(parsed.users) ? (parsed as RefusedBatch) : undefined;
  } catch {
    return undefined;
  }
}
