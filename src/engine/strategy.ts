// The contract between the migration engine (runner.ts) and a `--via` path. A path is a strategy: how the users
// the engine hands over become requests (a planner) and how many it takes at once (a batch policy). A path's own
// options are given to its factory (strategies/index.ts) before the run; everything the paths share is the
// engine's and reached through EngineContext: the journal, pause and stop, results, events, and the per-user steps
// that any path falls back on for a user bulk import cannot add to. A new path (a sync, say) is a new strategy,
// not a new loop. Invariant: EngineContext holds nothing of one path; a knob of a single path is its factory's.
import type { CoreClient } from '../core-client/types.js';
import type { RunEventListener, UserResult } from './events.js';
import type { Journal, JournalledUser } from './journal/journal.js';
import type { PlanOptions } from './plan/plan.js';
import type { Step } from './plan/steps.js';
import type { ValidatedRecord } from './runner.js';

/** A valid record that needs writing: not left out by a policy, not finished in the journal. */
export interface Admitted {
  input: ValidatedRecord;
  /** What the journal holds of the user (steps of an interrupted run, a failure, a staged upload in doubt). */
  journalled?: JournalledUser;
  /** The user's steps, when the strategy planned them already (while writing ahead). */
  planned?: Step[];
  /** Steps whose intent this run wrote ahead, with others' in one sync (write-ahead-window.ts). */
  prewritten?: Set<string>;
}

export interface EngineContext {
  readonly core: CoreClient;
  readonly journal: Journal;
  readonly plan: PlanOptions;
  /** Number of records of the run (from the validation pass), for progress and for sizing what is learnt of the core. */
  readonly total: number;
  readonly emit: RunEventListener;
  /** Record a user's final result: totals, the caller's files, the event (the strategy journals its own outcome). */
  finish(result: UserResult, input: ValidatedRecord): Promise<void>;
  /** Resolves while the run is not paused. */
  gate(): Promise<void>;
  isStopping(): boolean;
  requestStop(reason: 'requested' | 'fatal', err?: Error): void;
  /** The longest the core took to answer one of the run's requests in the last 10 s or so (undefined: none). */
  longestAnswerMs(): number | undefined;
  /** Waits `ms`, or less when the run is asked to stop. */
  sleep(ms: number): Promise<void>;
  /**
   * Migrate one user by its per-user steps and finish it (the `steps` path, and the users the bulk paths find
   * already in the core: bulk import never adds to an existing user). Resolves without a result when the run
   * stops in the middle (the journal resumes it); a fatal core error stops the run.
   */
  bySteps(user: Admitted): Promise<void>;
  /**
   * The fingerprint a finished user's line carries (journal/fingerprints.ts) waits in memory from the user's
   * admission to that line. A strategy that settles users long after taking them (`bulk-staged`: after the core's
   * job and a read-back) lets go of it meanwhile and notes it again just before the finishing line.
   */
  readonly fingerprints: { admit(input: ValidatedRecord): void; forget(user: string): void };
  /** Run `fn` over `items`, `concurrency` at a time; stops taking new items once the run is stopping. */
  pooled<T>(items: Iterable<T>, fn: (item: T) => Promise<void>): Promise<void>;
}

export interface Strategy {
  /** Users handed over at once: 1 (each user by one of `concurrency` workers) or a batch (one worker). */
  readonly batchSize: number;
  /**
   * Users the journal holds finished are taken again when this run's settings add to them (`--update-existing`,
   * `--disabled role:NAME`: plan.ts redoesFinished). Per-user steps only: the bulk paths import whole users.
   */
  readonly retakesFinished?: boolean;
  /**
   * Per-user paths: put on the disk, in one sync, the intents of these users that can be named before their
   * requests (write-ahead-window.ts); the others are written one by one right before their request.
   */
  writeAhead?(users: Admitted[]): Promise<void>;
  /** After the journal check, before the first user (e.g. learn what the core already holds). */
  prepare?(): Promise<void>;
  /** Migrate these users; every one is finished through the context, now or by drain(). */
  take(users: Admitted[]): Promise<void>;
  /** The input has ended and the run goes on: finish what is outstanding (follow the core's job, read back). */
  drain?(): Promise<void>;
  /** The run stops early: take back what can be taken back cheaply (rows the core's job has not claimed). */
  abandon?(): Promise<void>;
}

/** A path's strategy made over one run's context (strategies/index.ts makes one per `--via` from its options). */
export type StrategyFactory = (ctx: EngineContext) => Strategy;
