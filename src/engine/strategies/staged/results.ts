// `--via bulk-staged`, the results of the users the run staged, once read back (readback.ts). Most are
// written along with the core's job (along.ts); this full pass (the source read again, or the records kept)
// writes those left when that could not be done (a job that failed many users, records that cannot be read again).
// Each staged user gets its line: imported by this migration (journalled as its `bulk-staged` step, with the core's
// ids), completed by the per-user steps (partly in the core: what `--via steps` reports for it), or failed
// with the job's message (only a user that is not in the core can fail).
// Invariant: each staged user gets one result: a user already reported, or settled in the journal before, is skipped.
import type { BulkUserBody } from '../../../core-client/import-bodies.js';
import type { UserResult } from '../../events.js';
import { bulkShapeIds } from '../../rollback/shape.js';
import { leftOut } from '../../plan/plan.js';
import type { ValidatedRecord } from '../../runner.js';
import type { Admitted, EngineContext } from '../../strategy.js';
import { CONFIRMED, EXISTS, JOB_FAILED, PRESENT, REPORTED, STAGED, type StagedTable } from './table.js';
import { STAGED_STEP } from './upload.js';

/** How a record becomes its bulk body and key (the same planning the upload used), or undefined when it cannot. */
export type StagedPlanner = (user: Admitted) => { body: BulkUserBody; key: string } | undefined;

/** Users completed by the steps at once: a bounded buffer, run `concurrency` at a time. */
const STEPS_BUFFER = 256;
/** A full collection every so many users read again: the second read makes garbage fast (heap.ts). */
const GC_EVERY = 5_000;
/**
 * The journal is waited for every so many users: it queues its group commits without a limit, and this loop
 * finishes users far faster than lines are written and synced (a million users held 800 MB of queued lines).
 */
const JOURNAL_EVERY = 5_000;

/** `collect`: a full garbage collection (heap.ts), or nothing for a run that keeps its records anyway. */
export async function reportStaged(
  ctx: EngineContext,
  table: StagedTable,
  collect: () => void,
  planOf: StagedPlanner,
  reopenInputs: (() => AsyncIterable<ValidatedRecord>) | undefined,
): Promise<void> {
  const source: AsyncIterable<ValidatedRecord | undefined> | Iterable<ValidatedRecord | undefined> = table.inputs ?? reopenInputs?.() ?? [];
  let steps: Admitted[] = [];
  const runSteps = async (): Promise<void> => {
    const batch = steps;
    steps = [];
    await ctx.pooled(batch, (user) => ctx.bySteps(user));
  };
  let read = 0;
  for await (const input of source) {
    if (ctx.isStopping()) break;
    if (++read % JOURNAL_EVERY === 0) await ctx.journal.flush();
    if (read % GC_EVERY === 0) collect();
    if (!input || !input.valid || leftOut(input.record, ctx.plan)) continue;
    const journalled = ctx.journal.users.get(input.record.id);
    if (journalled?.outcome === 'imported' || journalled?.outcome === 'alreadyPresent') continue; // settled before this run
    const user: Admitted = journalled ? { input, journalled } : { input };
    const planned = planOf(user);
    if (!planned) continue;
    const i = table.find(planned.key);
    if (i === undefined || table.state[i] === REPORTED) continue; // settled during the upload (steps, refused, plan error)
    const state = table.state[i]!;
    table.setState(i, REPORTED);
    ctx.fingerprints.admit(input); // for its finishing line (let go of while the job worked)
    if (state === PRESENT || state === EXISTS) {
      steps.push(user);
      if (steps.length >= STEPS_BUFFER) await runSteps();
      continue;
    }
    await ctx.finish(settledResult(ctx, table, i, state, input, planned), input);
  }
  if (steps.length > 0) await runSteps();
}

/**
 * A user whose journal holds its read-back step (`bulk-staged`, created) but no outcome (a run stopped between the
 * two lines): imported, nothing to send. True when it was finished here.
 */
export async function finishReadBefore(ctx: EngineContext, user: Admitted): Promise<boolean> {
  const readBefore = user.journalled?.steps.get(STAGED_STEP);
  if (readBefore?.result !== 'created') return false;
  const id = user.input.record.id;
  ctx.journal.append({ type: 'user', user: id, outcome: 'imported' });
  const userId = readBefore.ids.recipeUserId;
  const result: UserResult = { id, outcome: 'imported', resumed: true, stepsRun: 0, stepsFromJournal: 1, ...(userId ? { userId } : {}) };
  await ctx.finish(result, user.input);
  return true;
}

/** The result (and journal lines) of a staged user read back (CONFIRMED) or not imported (any other state). */
export function settledResult(
  ctx: EngineContext,
  table: StagedTable,
  i: number,
  state: number,
  input: ValidatedRecord,
  planned: NonNullable<ReturnType<StagedPlanner>>,
): UserResult {
  const id = input.record.id;
  if (state === CONFIRMED) {
    // The id the core answers for the user, as `--via bulk` journals it: its external id where it has one, else
    // the SuperTokens id its row got (the core's own id, which a rollback removes by), with what the import gave
    // it (rollback/shape.ts), so that a rollback tells what changed since.
    const recipeUserId = planned.body.externalUserId ?? table.rowId(i) ?? table.foundIds.get(i)!;
    const ids: Record<string, string> = { recipeUserId, ...bulkShapeIds(planned.body) };
    ctx.journal.append({ type: 'step', user: id, step: STAGED_STEP, result: 'created', ids });
    ctx.journal.append({ type: 'user', user: id, outcome: 'imported' });
    return { id, stepsRun: 1, stepsFromJournal: 0, outcome: 'imported', userId: recipeUserId };
  }
  const status = state === JOB_FAILED ? 'BULK_IMPORT_FAILED' : 'STAGED_ROW_GONE';
  const message =
    state === JOB_FAILED
      ? explainJobFailure(table.messages.get(i) ?? "failed by the core's bulk-import job")
      : state === STAGED
        ? 'staged, then gone from the staging list without reaching the core (removed by someone?): the next run stages it again'
        : 'not settled';
  ctx.journal.append({ type: 'user', user: id, outcome: 'failed', step: STAGED_STEP, status });
  return { id, stepsRun: 1, stepsFromJournal: 0, outcome: 'failed', step: STAGED_STEP, status, message };
}

/**
 * The job's message, with what it means when it is not what it says. "externalUserId X is not unique" comes from the
 * set of external ids one job run has seen (BulkImportUserUtils.validateAndNormaliseExternalUserId), not from the
 * core's users, and validation refuses a file with an external id twice: so the run met this row twice. The
 * reference's job claims rows already PROCESSING as well as NEW (BulkImportQueries.getBulkImportUsersAndChangeStatus-
 * ToProcessing), so two core instances running it on one database take each other's rows: measured, 5,913 of
 * 200,000 users failed this way, none of them in the core. The user is not in the core (read back).
 */
export function explainJobFailure(message: string): string {
  if (!/externalUserId .* is not unique\. It is already used by another user/.test(message)) return message;
  return (
    `${message} (the core's job met this row twice in one of its runs: as when more than one core instance runs ` +
    'the bulk-import job on one database, which the reference allows but does not make safe; run the job on one ' +
    'instance only. The user is not in the core; the same command stages it again)'
  );
}
