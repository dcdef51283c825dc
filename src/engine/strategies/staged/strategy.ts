// `--via bulk-staged`: users go to the core's staging list in batches (POST /bulk-import/users, up to 10,000 a
// request) and the core's own job imports them. Without a request per user: what the core holds is learnt once
// in bulk (strategies/bulk/knowledge.ts; into a core more than 10 times the run, each user is looked up instead:
// lookup.ts), and only users with none of their login methods (or external id) there are staged
// (sort.ts); the others are partly in the core and the per-user steps complete them, as they would on
// `--via steps`. Each upload is written ahead in the journal and never sent twice (upload.ts); a batch goes
// up while the next is prepared (one upload at a time, in the source's order) and while the job works; the job is
// followed by the list's counts (follow.ts, job.ts), each of its claims is read back while it imports
// the next (early.ts; by the uploads the job has taken whole where the list tells them apart: batches.ts), and the
// results of the users read back are written meanwhile (along.ts); once
// it is done, its FAILED rows and the users still awaited (its last claim) are read back in bulk
// (readback.ts), and the last results written. Memory is a batch or two plus a few dozen bytes per staged
// user (table.ts).
// Invariant: every upload is written ahead in the journal and sent once; a user counts as imported only when read back.
import type { Admitted, EngineContext, StrategyFactory } from '../../strategy.js';
import { removeStaged, runUserOf, stagingPages } from './staging-list.js';
import { AWAITED, readBack } from './readback.js';
import { reportStaged } from './results.js';
import { sortBatch } from './sort.js';
import { STAGED } from './table.js';
import { STAGED_STEP, stageBatch, type ToStage } from './upload.js';
import { learnCore, planAndLookUp } from './lookup.js';
import { setUp, type StagedOptions, type StagedRun } from './run-state.js';

export { DEFAULT_STAGED_BATCH, REFERENCE_JOB_INTERVAL_MS, type StagedOptions } from './run-state.js';

/** Batches of at least this many users end with a full collection (tens of milliseconds; none for small runs). */
const GC_EVERY = 2_000;

export function stagedStrategy(options: StagedOptions): StrategyFactory {
  return (ctx) => {
    const run = setUp(ctx, options);
    return {
      batchSize: run.batchSize,
      take: (users) => take(run, users),
      drain: () => drain(run),
      abandon: () => abandon(run),
    };
  };
}

/** The upload under way (if any) answered. */
async function uploaded(run: StagedRun): Promise<void> {
  const u = run.uploading;
  run.uploading = undefined;
  await u;
}

async function take(run: StagedRun, users: Admitted[]): Promise<void> {
  const { ctx, table } = run;
  run.known ??= await learnCore(ctx.core, ctx.total, run.batchSize, (p, detail) => run.phase(p, detail));
  const { snapshot, knowledge, lookUp } = run.known;
  const plans = await planAndLookUp(ctx.core, users, run.planOf, knowledge, lookUp, (items, fn) => ctx.pooled(items, fn));
  if (ctx.isStopping()) return; // users not looked up are not staged; the same command carries on
  const { toStage, bySteps, oldFailed } = await sortBatch(ctx, table, { users, plans, planOf: run.planOf, snapshot, knowledge });
  if (oldFailed.length > 0) await removeStaged(ctx.core, oldFailed);
  const before = run.uploading;
  // This batch's upload leaves once the one before is answered; its users that need steps start at once.
  const staging =
    toStage.length > 0
      ? (before ?? Promise.resolve()).then(async () => {
          let placed = 0;
          const onStaged = (n: number) => {
            placed += n;
            run.watcher.staged(n);
          };
          run.watcher.staging(toStage.length);
          await stageBatch(ctx, table, toStage, onStaged, refuser(ctx)).finally(() => run.watcher.landed());
          await run.batches.uploaded(placed); // before the next upload: its newest row is this one's last
        })
      : undefined;
  const lastId = users.at(-1)?.input.record.id;
  const upload = Promise.all([staging, ctx.pooled(bySteps, (u) => ctx.bySteps(u))]).then(() => {
    // The results written along with the job pass this batch once its users are read back (along.ts).
    if (lastId !== undefined) run.along.batchTaken(lastId);
  });
  upload.catch(() => undefined); // awaited by the next batch or the drain; only kept from going unhandled here
  run.uploading = upload;
  await before;
  // A job far behind the uploads gains nothing from a second one at once: one batch in memory, not two.
  if (table.countIn(STAGED) >= 2 * run.batchSize) await uploaded(run);
  if (Date.now() - run.follower.lastLook >= run.pollMs && table.countIn(STAGED) > 0) await run.follower.look();
  // A batch leaves tens of MB behind (its records, bodies, request and the core's echo of every user): without a
  // collection here V8 lets the old generation grow past several batches' worth before it collects (heap.ts).
  if (users.length >= GC_EVERY) run.collect();
}

/** A user the core refused in its batch: failed with the core's words (secrets taken out). */
const refuser =
  (ctx: EngineContext) =>
  async (s: ToStage, message: string): Promise<void> => {
    const id = s.user.input.record.id;
    ctx.journal.append({ type: 'user', user: id, outcome: 'failed', step: STAGED_STEP, status: 'BULK_STAGE_REFUSED' });
    await ctx.finish(
      { id, outcome: 'failed', step: STAGED_STEP, status: 'BULK_STAGE_REFUSED', message, stepsRun: 1, stepsFromJournal: 0 },
      s.user.input,
    );
  };

async function drain(run: StagedRun): Promise<void> {
  const { ctx, table, early, along } = run;
  await uploaded(run);
  if (table.size === 0) return;
  const following = () => run.phase('following', "waiting for the core's bulk-import job to take every staged user");
  if (!(await run.follower.toTheEnd(following))) return;
  await early.idle();
  const meanwhile =
    early.settled > 0
      ? `; ${early.settled.toLocaleString('en-US')} read back while the job worked, ` +
        `${along.writtenMeanwhile.toLocaleString('en-US')} of their results written`
      : '';
  run.phase(
    'reading-back',
    `reading the core's users back (500 a request, from the first to the last join time of the ${table
      .countIn(...AWAITED)
      .toLocaleString('en-US')} users awaited${meanwhile}) to confirm what the job imported`,
  );
  // The results written along with the job go on while the last users are read back.
  along.readBackTo(early.readTo);
  const read = await readBack(ctx.core, table).then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
  if (read) {
    await along.stop();
    throw read.err;
  }
  if (table.failedRows.size > 0) await removeStaged(ctx.core, [...table.failedRows]); // the run's leftovers; settled below
  run.phase('reporting', 'writing the results of the staged users');
  if (await along.final()) await reportStaged(ctx, table, run.collect, run.planned, run.options.reopenInputs);
}

/** Stopping: this run's rows the job has not claimed (NEW) are taken out of the list; PROCESSING ones are left to it. */
async function abandon(run: StagedRun): Promise<void> {
  const { ctx, table } = run;
  await uploaded(run).catch(() => undefined); // an upload under way lands first, then its rows are taken back too
  await run.early.idle();
  await run.along.stop();
  const ours = table.countIn(STAGED);
  if (ours === 0) return;
  const ids: string[] = [];
  for await (const page of stagingPages(ctx.core, 'NEW')) {
    for (const row of page) {
      const i = runUserOf(table, row);
      if (i !== undefined && table.state[i] === STAGED) ids.push(row.id);
    }
  }
  const removed = await removeStaged(ctx.core, ids);
  ctx.emit({ type: 'staged-removed', removed: removed.length, left: ours - removed.length, at: Date.now() });
}
