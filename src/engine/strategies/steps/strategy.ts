// `--via steps`, and the per-user fallback of every path: one user's steps in order (plan.ts), each through the
// exactly-once rule (execute.ts), every completed step journalled, steps an earlier run finished taken from
// the journal. The outcome is `imported` when any step created something, else `alreadyPresent`. Write-ahead: a
// step's intent is on the disk before its request (intent.ts says which steps need one of their own). On a core it
// reads in bulk, a mapping's read-back waits for the next listing without holding a worker (mapping-readback.ts).
// Invariant: a step's intent is on the disk before its request, and a step finished in the journal is never sent again.
import { CoreClientError } from '../../../core-client/errors.js';
import type { UserResult } from '../../events.js';
import { applyStepIds, executeStep, newUserIds, resolveRef, type KnownAbsent, type StepOutcome, type UserIds } from './execute.js';
import { done } from './ids.js';
import { journalledRecipeUserIds, type JournalledSteps } from '../../journal/journal.js';
import type { Step } from '../../plan/steps.js';
import { planUserSteps, PlanError, type PlanOptions } from '../../plan/plan.js';
import type { CanonicalUser } from '../../../records/types.js';
import { CREATES_LOGIN, intentOf, onCreatedUser, stepLine, writeAheadSteps } from './intent.js';
import type { Admitted, EngineContext, StrategyFactory } from '../../strategy.js';
import { knownAbsentForSteps } from './knowledge-choice.js';
import { laterKey, MappingReadBacks, readMappingBack, type LaterReadBack, type MapStep } from './mapping-readback.js';
import { asError } from '../../../errors.js';

/** The id the core knows a user by, for a user the journal holds complete (its steps replayed for their ids). */
export function journalledUserId(record: CanonicalUser, journalSteps: JournalledSteps, plan: PlanOptions | undefined): string | undefined {
  try {
    const steps = planUserSteps(record, plan);
    const map = steps.find((s) => s.kind === 'map-user-id');
    if (map?.kind === 'map-user-id') return map.externalUserId;
    return journalSteps.get(steps[0]!.key)?.ids.recipeUserId ?? journalledRecipeUserIds(journalSteps)[0];
  } catch {
    return undefined;
  }
}

/**
 * One user's steps; undefined when the run stopped between two of them (the journal resumes it). Fatal core
 * errors (401, 402, unreachable) propagate. `knownAbsent` (the steps path's): skip the look-up of a login known
 * absent. `later`: a mapping made on a user the run created is read back by the run's listings (mapping-readback.ts).
 */
export async function migrateUserSteps(
  ctx: EngineContext,
  admitted: Admitted,
  knownAbsent?: KnownAbsent,
  later?: LaterReadBack,
): Promise<UserResult | undefined> {
  const { input, journalled, prewritten } = admitted;
  const id = input.record.id;
  const base = { id, stepsRun: 0, stepsFromJournal: 0 };
  let steps = admitted.planned;
  try {
    steps ??= planUserSteps(input.record, ctx.plan);
  } catch (err) {
    if (err instanceof PlanError) return { ...base, outcome: 'failed', step: 'plan', status: 'PLAN_ERROR', message: err.message };
    throw err;
  }
  const ids = newUserIds();
  let created = false;
  let replaced = false;
  let stepsRun = 0;
  let fromJournal = 0;
  /** The mapping the core said OK to, waiting for the run's next listing of the core (mapping-readback.ts). */
  let unread: Unread | undefined;
  const failed = (step: Step, out: Extract<StepOutcome, { ok: false }>): UserResult => {
    ctx.journal.append({ type: 'user', user: id, outcome: 'failed', step: step.key, status: out.status });
    return {
      ...base,
      outcome: 'failed',
      step: step.key,
      status: out.status,
      message: out.message,
      stepsRun,
      stepsFromJournal: fromJournal,
    };
  };
  for (const step of steps) {
    const journalledStep = journalled?.steps.get(step.key);
    // A login's line without the id later steps need (a core's bare OK, believed by an older version): not
    // trusted; the step runs again as intended, and finds the login in the core.
    const lacksId = journalledStep !== undefined && CREATES_LOGIN.has(step.kind) && journalledStep.ids.recipeUserId === undefined;
    const prev = lacksId ? undefined : journalledStep;
    if (prev) {
      applyStepIds(step, prev.ids, ids, prev.result);
      if (step.kind === 'replace-password') replaced ||= prev.result === 'created';
      else created ||= prev.result === 'created';
      fromJournal += 1;
      continue;
    }
    await ctx.gate();
    if (ctx.isStopping()) return undefined; // interrupted between steps: the journal resumes it
    const owned = onCreatedUser(step, ids);
    const loginKey = step.kind === 'map-user-id' && later ? laterKey(step, steps, ids, ctx.core.tenantId) : undefined;
    ids.mappingReadLater = loginKey !== undefined;
    const out = await executeStep(step, ids, ctx.core, knownAbsent, {
      intended: owned || lacksId || journalled?.intents?.has(step.key) === true,
      ...(owned || prewritten?.has(step.key) ? {} : { intend: () => ctx.journal.appendDurable(intentOf(id, step, ids)) }),
    });
    stepsRun += 1;
    if (!out.ok) return failed(step, out);
    applyStepIds(step, out.ids, ids, out.result);
    if (out.unread && step.kind === 'map-user-id' && loginKey !== undefined) {
      // Its line waits for a listing that shows it (or its own read-back at the user's end).
      unread = listedMapping(ctx, id, step, loginKey, later!);
      created = true;
      continue;
    }
    ctx.journal.append(stepLine(id, step, out));
    // --update-existing's replaced hash is counted apart: the user was there before (alreadyPresent).
    if (step.kind === 'replace-password') replaced ||= out.result === 'created';
    else created ||= out.result === 'created';
  }
  if (unread) {
    const out = await settleMapping(ctx, id, unread, ids, later!);
    if (out === undefined) return undefined; // the run stopped first: the journal's next run reads it back
    if (!out.ok) return failed(unread.step, out);
  }
  const outcome = created ? 'imported' : 'alreadyPresent';
  ctx.journal.append({ type: 'user', user: id, outcome });
  const result: UserResult = { ...base, outcome, stepsRun, stepsFromJournal: fromJournal, userId: resolveRef(ids, steps[0]!.key) };
  if (replaced) result.replaced = true;
  // What the core's user no longer has since the export (an email changed there): left as it is, and said so.
  if (ids.changed.size > 0) result.message = [...ids.changed.values()].join('; ');
  return result;
}

/** A mapping the core said OK to, and whether the run's listing showed it (mapping-readback.ts). */
interface Unread {
  step: MapStep;
  seen: Promise<boolean | undefined>;
}

/** Asked right after the OK (only a listing that begins after it counts); journalled as soon as a listing shows it, even if the user's later steps stop the run. */
function listedMapping(ctx: EngineContext, user: string, step: MapStep, loginKey: string, later: LaterReadBack): Unread {
  const seen = later.readBacks.confirm(loginKey, step.externalUserId).then((shown) => {
    if (shown) ctx.journal.append(stepLine(user, step, { result: 'created', ids: { externalUserId: step.externalUserId } }));
    return shown;
  });
  return { step, seen };
}

/**
 * A mapping left to the run's next listing: the user lets its worker go and waits for it; not in the listing, it is
 * read back by itself (and sent again if the OK applied nothing). Its line once it counts; undefined when the run stopped.
 */
async function settleMapping(
  ctx: EngineContext,
  user: string,
  unread: Unread,
  ids: UserIds,
  later: LaterReadBack,
): Promise<StepOutcome | undefined> {
  later.waiting();
  const seen = await unread.seen;
  if (seen === undefined) return undefined;
  if (seen) return done(true, { externalUserId: unread.step.externalUserId }); // journalled when the listing showed it
  const out = await readMappingBack(unread.step, ids, ctx.core);
  if (out.ok) ctx.journal.append(stepLine(user, unread.step, out));
  return out;
}

/** Runs `migrate` for one user and finishes it; a fatal core error stops the run (the user stays resumable). */
export async function finishOne(
  ctx: EngineContext,
  user: Admitted,
  migrate: (ctx: EngineContext, user: Admitted) => Promise<UserResult | undefined>,
): Promise<void> {
  let result: UserResult | undefined;
  try {
    result = await migrate(ctx, user);
  } catch (err) {
    if (err instanceof CoreClientError && err.fatal) {
      ctx.requestStop('fatal', err);
      return;
    }
    throw err;
  }
  if (result) await ctx.finish(result, user.input);
}

/** A stopping run's last listing for the mappings waiting: this long at most (then the next run reads them back). */
const LAST_READ_MS = 5_000;

/**
 * `--via steps`: each user alone, `concurrency` users at once; the look-up of users known absent from the core,
 * learnt in bulk, is skipped (knowledge.ts), and on such a core the mappings the run makes are read back by its
 * listings (mapping-readback.ts): a user waiting for one lets its worker go, and is finished by then (drain waits
 * for the last). The path has no options of its own.
 */
export const stepsStrategy: StrategyFactory = (ctx) => {
  const knownAbsent = knownAbsentForSteps(ctx.core, ctx.total, ctx.emit, ctx.longestAnswerMs);
  let readBacks: MappingReadBacks | undefined;
  const outstanding = new Set<Promise<void>>();
  const readBacksNow = (): MappingReadBacks | undefined => {
    const listed = knownAbsent.listed();
    if (listed && !readBacks) readBacks = new MappingReadBacks(listed, ctx.core.tenantId);
    return readBacks;
  };
  const settleOutstanding = async (): Promise<void> => {
    while (outstanding.size > 0) await Promise.all(outstanding);
  };
  return {
    batchSize: 1,
    retakesFinished: true,
    writeAhead: (users) => writeAheadSteps(ctx, knownAbsent, users),
    take: async (users) => {
      for (const user of users) {
        let release!: () => void;
        const released = new Promise<'waiting'>((resolve) => (release = () => resolve('waiting')));
        const rb = readBacksNow();
        const later = rb ? { readBacks: rb, waiting: () => release() } : undefined;
        const whole = finishOne(ctx, user, (c, u) => migrateUserSteps(c, u, knownAbsent, later));
        if ((await Promise.race([whole.then(() => 'done' as const), released])) === 'done') continue;
        // The user waits for a listing: finished by then, by drain, or left to the journal's next run if the run stops.
        const tracked: Promise<void> = whole
          .catch((err: unknown) => ctx.requestStop('fatal', asError(err)))
          .finally(() => outstanding.delete(tracked));
        outstanding.add(tracked);
      }
    },
    drain: async () => {
      readBacks?.flush();
      await settleOutstanding();
    },
    abandon: async () => {
      await readBacks?.stopAfterLastRead(LAST_READ_MS);
      await settleOutstanding();
    },
  };
};
