// `--via bulk-staged`, sorting a batch the engine hands over: each user is staged, left to the per-user steps
// (partly in the core, or steps begun by an earlier run), waited for (staged already by a run of this migration that
// stopped), read back (in an upload when a run stopped, in the core now), finished at once (read back before) or
// failed (its record cannot be planned). Rows an earlier run left FAILED for a user staged again are named for
// removal.
// Invariant: a user with any of its login methods (or its external id) in the core is never staged.
import type { BulkUserBody } from '../../../core-client/import-bodies.js';
import type { CoreKnowledge } from '../bulk/knowledge.js';
import { PlanError } from '../../plan/plan.js';
import type { Admitted, EngineContext } from '../../strategy.js';
import type { StagingSnapshot } from './staging-list.js';
import { finishReadBefore } from './results.js';
import { EXISTS, STAGED, type StagedTable } from './table.js';
import type { ToStage } from './upload.js';

/** A user's bulk body, the key of its first login method and the join time that identifies it in the core. */
export interface StagedPlan {
  body: BulkUserBody;
  key: string;
  joined: number;
  externalUserId?: string;
}

export interface SortedBatch {
  toStage: ToStage[];
  bySteps: Admitted[];
  /** Rows of earlier runs left FAILED for users staged again. */
  oldFailed: string[];
}

export interface SortInputs {
  users: Admitted[];
  plans: Map<Admitted, StagedPlan>;
  planOf: (user: Admitted) => StagedPlan;
  snapshot: StagingSnapshot;
  knowledge: CoreKnowledge;
}

export async function sortBatch(ctx: EngineContext, table: StagedTable, inputs: SortInputs): Promise<SortedBatch> {
  const { journal } = ctx;
  const out: SortedBatch = { toStage: [], bySteps: [], oldFailed: [] };
  for (const user of inputs.users) {
    if (await finishReadBefore(ctx, user)) continue;
    // Steps an earlier run began for this user (it was partly in the core then): they carry on.
    if (user.journalled && user.journalled.steps.size > 0) {
      out.bySteps.push(user);
      continue;
    }
    const p = await planned(ctx, user, inputs);
    if (!p) continue;
    const inDoubt = user.journalled?.staged !== undefined;
    const row = inputs.snapshot.get(p.key);
    if (row && row.status !== 'FAILED') {
      // Staged already (by a run of this migration that stopped): waited for, never uploaded again.
      ctx.fingerprints.forget(user.input.record.id); // noted again when it is settled
      const i = table.add(p.key, row.joined, STAGED);
      table.markListed(i);
      table.setRowId(i, row.id);
      if (table.inputs) table.inputs[i] = user.input;
      if (user.journalled?.staged !== row.joined) journal.append({ type: 'staged', user: user.input.record.id, joined: row.joined });
      continue;
    }
    if (row?.status === 'FAILED' && row.joined === p.joined) out.oldFailed.push(row.id);
    if (inputs.knowledge.holdsAnyOf(p.body)) {
      if (inDoubt) {
        // In an upload when a run stopped, and in the core now: read back decides whether that upload made it.
        ctx.fingerprints.forget(user.input.record.id); // noted again when it is settled
        const i = table.add(p.key, p.joined, EXISTS);
        if (table.inputs) table.inputs[i] = user.input;
      } else out.bySteps.push(user);
      continue;
    }
    out.toStage.push({ user, ...p });
  }
  return out;
}

/** The user's plan, or undefined once it is finished as failed (a record that cannot be planned). */
async function planned(ctx: EngineContext, user: Admitted, inputs: SortInputs): Promise<StagedPlan | undefined> {
  try {
    return inputs.plans.get(user) ?? inputs.planOf(user);
  } catch (err) {
    if (!(err instanceof PlanError)) throw err;
    const id = user.input.record.id;
    await ctx.finish(
      { id, outcome: 'failed', step: 'plan', status: 'PLAN_ERROR', message: err.message, stepsRun: 0, stepsFromJournal: 0 },
      user.input,
    );
    return undefined;
  }
}
