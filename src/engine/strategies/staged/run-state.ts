// `--via bulk-staged`, what a run holds from its first batch to its results, made once (setUp): the table of its
// staged users, the job's watcher and follower, the read-backs with the job (early.ts) and the results written
// along (along.ts), and the planners that make a user's bulk body (its join time: the record's, the one an earlier
// run staged it with, or a minute before this run began). strategy.ts takes the batches through it.
// Invariant: a user's body, key and join time all come from one function (bodyOf), for its upload and its result alike.
import { collectAfter } from '../../../heap.js';
import type { BulkUserBody } from '../../../core-client/import-bodies.js';
import { planBulkUser, type BulkPlanOptions } from '../bulk/plan.js';
import type { Admitted, EngineContext } from '../../strategy.js';
import type { ValidatedRecord } from '../../runner.js';
import { KEEP_RECORDS_UP_TO } from '../../../records/validate.js';
import { ResultsAlong } from './along.js';
import { ListedBatches } from './batches.js';
import { EarlyReadBack } from './early.js';
import { JobFollower } from './follow.js';
import { JobWatcher } from './job.js';
import { stagedKey } from './staging-list.js';
import type { StagedPlanner } from './results.js';
import type { StagedPlan } from './sort.js';
import { STAGED, StagedTable } from './table.js';
import type { Learnt } from './lookup.js';

/** The reference's job interval (BulkImport.PROCESS_USERS_INTERVAL_SECONDS). */
export const REFERENCE_JOB_INTERVAL_MS = 300_000;
export const DEFAULT_STAGED_BATCH = 10_000;

/** A record without a join date joins this long before the run began (the core refuses a time in its future). */
const CLOCK_MARGIN_MS = 60_000;

/** The path's own options, built from the run's request (operations/run-parts.ts writePathOf). */
export interface StagedOptions {
  /** Users per upload (at most 10,000; default 10,000). */
  batchSize?: number;
  /** The interval of the core's bulk-import job (default: the reference's, 300 s). */
  jobIntervalMs?: number;
  /** Nothing moving for this long, with users waiting, stops the run (default: job.ts defaultStallAfterMs). */
  stallAfterMs?: number;
  /** How often the staging list is read while the job works (default 1 s while uploading, 250 ms after). */
  pollMs?: number;
  /**
   * The same records again, from the start: read a second time to report the users the core's job imported,
   * instead of holding a million of them in memory. Without it they are held.
   */
  reopenInputs?: () => AsyncIterable<ValidatedRecord>;
}

export type Phase = 'learning' | 'uploading' | 'following' | 'reading-back' | 'reporting';

/** What a staged run holds from its first batch to its results. */
export interface StagedRun {
  ctx: EngineContext;
  options: StagedOptions;
  batchSize: number;
  /** Looks at the job: once a second while uploading. */
  pollMs: number;
  table: StagedTable;
  watcher: JobWatcher;
  follower: JobFollower;
  early: EarlyReadBack;
  /** The run's uploads as the staging list tells them apart (batches.ts). */
  batches: ListedBatches;
  along: ResultsAlong;
  collect: () => void;
  planOf: (user: Admitted) => StagedPlan;
  planned: StagedPlanner;
  phase: (p: Phase, detail: string) => void;
  known?: Learnt;
  /**
   * The batch being uploaded while the next is read and planned; the next upload leaves when this one is answered.
   * One upload at a time: the reference's job claims rows in the order PostgreSQL stored them, so on a fresh list
   * uploads one after the other keep each claim a run of the source's users, which the read-back settles while the
   * job imports the next. Two at once interleaved their rows: each claim spread over the whole run, and every read
   * had to read all of it (20,000 users on the reference: 1.2 s read at the end instead of 0.3 s; both batches stored
   * 0.4 s sooner). On a list the job has removed rows from, PostgreSQL stores new rows where removed ones were, and
   * the claims mix the uploads whatever their order (docs/benchmarks.md, "where a staged turn's time goes").
   */
  uploading?: Promise<void>;
}

export function setUp(ctx: EngineContext, options: StagedOptions): StagedRun {
  const { core } = ctx;
  const batchSize = Math.min(10_000, Math.max(1, options.batchSize ?? DEFAULT_STAGED_BATCH));
  const runJoined = Date.now() - CLOCK_MARGIN_MS;
  const table = new StagedTable(ctx.total);
  // The records are kept for the results when the source cannot be read again (standard input), and in a run of at
  // most as many records as the validation pass keeps (records/validate.ts KEEP_RECORDS_UP_TO): the results are written
  // from them, without reading and checking the source twice more (along.ts, results.ts; a 20,000-user turn against
  // the reference spent 0.7 s less CPU). They are held to the end, so no full collections (nor in a small run: heap.ts).
  if (!options.reopenInputs || ctx.total <= KEEP_RECORDS_UP_TO) table.inputs = [];
  const collect = table.inputs ? () => undefined : () => collectAfter(ctx.total);
  // The planner's options, made once (copying the run's plan options for every user, twice per user, was most of
  // planOf's own time in the profile: docs/benchmarks.md); a user staged by an earlier run keeps its join time.
  let runOptions: BulkPlanOptions | undefined;
  let runOptionsOf: EngineContext['plan'] | undefined;
  const optionsFor = (fallback: number): BulkPlanOptions => {
    if (fallback !== runJoined) return { ...ctx.plan, tenantId: core.tenantId, joinedWhenUnknown: fallback };
    if (runOptionsOf !== ctx.plan) {
      runOptionsOf = ctx.plan;
      runOptions = { ...ctx.plan, tenantId: core.tenantId, joinedWhenUnknown: runJoined };
    }
    return runOptions!;
  };
  const bodyOf = (user: Admitted): { body: BulkUserBody; fallback: number } => {
    const fallback = user.journalled?.staged ?? runJoined;
    return { body: planBulkUser(user.input.record, optionsFor(fallback)), fallback };
  };
  const planOf = (user: Admitted): StagedPlan => {
    const { body, fallback } = bodyOf(user);
    const joined = body.loginMethods[0]!.timeJoinedInMSSinceEpoch ?? fallback;
    return { body, key: stagedKey(body), joined, ...(body.externalUserId !== undefined ? { externalUserId: body.externalUserId } : {}) };
  };
  // For a result line: the body (its shape ids and external id) and its key; nothing else is made.
  const planned: StagedPlanner = (user) => {
    try {
      const { body } = bodyOf(user);
      return { body, key: stagedKey(body) };
    } catch {
      return undefined;
    }
  };
  const along = new ResultsAlong(ctx, table, planned, collect, options.reopenInputs);
  const batches = new ListedBatches(core, table);
  const early = new EarlyReadBack(core, table, () => along.readBackTo(early.readTo), batches);
  // No stallAfterMs: the watcher's default (job.ts defaultStallAfterMs of the interval).
  const watcher = new JobWatcher(options.jobIntervalMs ?? REFERENCE_JOB_INTERVAL_MS, () => table.countIn(STAGED), options.stallAfterMs);
  // Once only the job is left, it is looked at four times a second, so that its end is seen within a quarter of a
  // second (three count requests each time, as cheap as a look-up).
  const follower = new JobFollower(ctx, table, watcher, early, options.pollMs ?? 250);
  const phase = (p: Phase, detail: string) => ctx.emit({ type: 'staged-phase', phase: p, detail, at: Date.now() });
  return {
    ctx,
    options,
    batchSize,
    pollMs: options.pollMs ?? 1000,
    table,
    watcher,
    follower,
    early,
    batches,
    along,
    collect,
    planOf,
    planned,
    phase,
  };
}
