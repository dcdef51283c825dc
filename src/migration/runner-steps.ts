// `--via steps`, and the per-user fallback of every path: one user's steps in order (plan.ts), each through the
// exactly-once rule (execute.ts), every completed step journalled, steps an earlier run finished taken from
// the journal. The outcome is `imported` when any step created something, else `alreadyPresent`.
import { CoreClientError } from '../core-client/errors.js';
import type { UserResult } from './events.js';
import { applyStepIds, executeStep, newUserIds, resolveRef } from './execute.js';
import { journalledRecipeUserIds, type JournalledSteps } from './journal.js';
import { planUserSteps, PlanError, type PlanOptions } from './plan.js';
import type { CanonicalUser } from '../records/types.js';
import { stepShapeIds } from './rollback-shape.js';
import type { Admitted, EngineContext, Strategy } from './runner-strategy.js';

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
 * errors (401, 402, unreachable) propagate.
 */
export async function migrateUserSteps(ctx: EngineContext, { input, journalled }: Admitted): Promise<UserResult | undefined> {
  const id = input.record.id;
  const base = { id, stepsRun: 0, stepsFromJournal: 0 };
  let steps;
  try {
    steps = planUserSteps(input.record, ctx.plan);
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
    const prev = journalled?.steps.get(step.key);
    if (prev) {
      applyStepIds(step, prev.ids, ids, prev.result);
      if (step.kind === 'replace-password') replaced ||= prev.result === 'created';
      else created ||= prev.result === 'created';
      fromJournal += 1;
      continue;
    }
    await ctx.gate();
    if (ctx.isStopping()) return undefined; // interrupted between steps: the journal resumes it
    const out = await executeStep(step, ids, ctx.core, ctx.knownAbsent);
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
    const journalIds = out.result === 'created' ? { ...out.ids, ...stepShapeIds(step) } : out.ids;
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

/** `--via steps`: each user alone, `concurrency` users at once. */
export function stepsStrategy(ctx: EngineContext): Strategy {
  return {
    batchSize: 1,
    take: async (users) => {
      for (const user of users) await ctx.bySteps(user);
    },
  };
}
