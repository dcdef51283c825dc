// `--via steps`, and the per-user fallback of every path: one user's steps in order (plan.ts), each through the
// exactly-once rule (execute.ts), every completed step journalled, steps an earlier run finished taken from
// the journal. The outcome is `imported` when any step created something, else `alreadyPresent`. Write-ahead: a
// step's intent is on the disk before its request (intent.ts says which steps need one of their own).
// Invariant: a step's intent is on the disk before its request, and a step finished in the journal is never sent again.
import { CoreClientError } from '../../../core-client/errors.js';
import type { UserResult } from '../../events.js';
import { applyStepIds, executeStep, newUserIds, resolveRef, type KnownAbsent, type UserIds } from './execute.js';
import { journalledRecipeUserIds, type JournalEntry, type JournalledSteps } from '../../journal/journal.js';
import type { Step } from '../../plan/steps.js';
import { planUserSteps, PlanError, type PlanOptions } from '../../plan/plan.js';
import type { CanonicalUser } from '../../../records/types.js';
import { stepShapeIds } from '../../rollback/shape.js';
import { onCreatedUser, stepIdentity } from './intent.js';
import type { Admitted, EngineContext, StrategyFactory } from '../../strategy.js';
import { knownAbsentForSteps } from './knowledge.js';

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
 * absent.
 */
export async function migrateUserSteps(ctx: EngineContext, admitted: Admitted, knownAbsent?: KnownAbsent): Promise<UserResult | undefined> {
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
    const out = await executeStep(step, ids, ctx.core, knownAbsent, {
      intended: owned || lacksId || journalled?.intents?.has(step.key) === true,
      ...(owned || prewritten?.has(step.key) ? {} : { intend: () => ctx.journal.appendDurable(intentOf(id, step, ids)) }),
    });
    stepsRun += 1;
    if (!out.ok) {
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
    }
    applyStepIds(step, out.ids, ids, out.result);
    // A login method the run created carries its fingerprint, so a rollback can tell it was changed since.
    const journalIds = out.result === 'created' ? { ...out.ids, ...shapeOf(step) } : out.ids;
    ctx.journal.append({ type: 'step', user: id, step: step.key, result: out.result, ids: journalIds });
    // --update-existing's replaced hash is counted apart: the user was there before (alreadyPresent).
    if (step.kind === 'replace-password') replaced ||= out.result === 'created';
    else created ||= out.result === 'created';
  }
  const outcome = created ? 'imported' : 'alreadyPresent';
  ctx.journal.append({ type: 'user', user: id, outcome });
  const result: UserResult = { ...base, outcome, stepsRun, stepsFromJournal: fromJournal, userId: resolveRef(ids, steps[0]!.key) };
  if (replaced) result.replaced = true;
  // What the core's user no longer has since the export (an email changed there): left as it is, and said so.
  if (ids.changed.size > 0) result.message = [...ids.changed.values()].join('; ');
  return result;
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

/**
 * A step's login fingerprint (rollback/shape.ts: a SHA-256 per form), taken once for its intent and its step line:
 * the step object lives from the user's plan to its last step, and goes with it.
 */
const shapes = new WeakMap<Step, Record<string, string>>();
function shapeOf(step: Step): Record<string, string> {
  let shape = shapes.get(step);
  if (shape === undefined) shapes.set(step, (shape = stepShapeIds(step)));
  return shape;
}

/** A step's write-ahead line; it carries the login's fingerprint too, so a rollback that settles it tells changes since. */
const intentOf = (user: string, step: Step, ids: UserIds): JournalEntry => ({
  type: 'intent',
  user,
  step: step.key,
  who: { ...stepIdentity(step, ids), ...shapeOf(step) },
});

/** Steps that create a login method: their users' look-up is what the engine's knowledge of the core answers. */
const CREATES_LOGIN = new Set<Step['kind']>(['import-password', 'thirdparty-signinup', 'passwordless-signinup']);

/**
 * The intents of the login methods the engine knows absent from the core, for a window of users, in one sync. A
 * user an earlier run began goes its own way (its intents are settled from the core, one by one).
 */
async function writeAheadSteps(ctx: EngineContext, knownAbsent: KnownAbsent, users: Admitted[]): Promise<void> {
  let wrote = false;
  for (const user of users) {
    if (user.journalled) continue;
    try {
      user.planned = planUserSteps(user.input.record, ctx.plan);
    } catch {
      continue; // its plan error is reported when its turn comes
    }
    const ids = newUserIds();
    for (const step of user.planned) {
      if (!CREATES_LOGIN.has(step.kind) || !(await knownAbsent(step))) continue;
      ctx.journal.append(intentOf(user.input.record.id, step, ids));
      (user.prewritten ??= new Set()).add(step.key);
      wrote = true;
    }
  }
  if (wrote) await ctx.journal.flush();
}

/**
 * `--via steps`: each user alone, `concurrency` users at once; the look-up of users known absent from the core,
 * learnt in bulk, is skipped (knowledge.ts). The path has no options of its own.
 */
export const stepsStrategy: StrategyFactory = (ctx) => {
  const knownAbsent = knownAbsentForSteps(ctx.core, ctx.total, ctx.emit);
  const migrate = (c: EngineContext, user: Admitted) => migrateUserSteps(c, user, knownAbsent);
  return {
    batchSize: 1,
    retakesFinished: true,
    writeAhead: (users) => writeAheadSteps(ctx, knownAbsent, users),
    take: async (users) => {
      for (const user of users) await finishOne(ctx, user, migrate);
    },
  };
};
