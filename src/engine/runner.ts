// The migration engine's entry (startMigration), one for every `--via` path: it reads the validated records,
// settles those that need no write (invalid, left out by a policy, finished in the journal of an earlier run), and
// hands the rest to the strategy it is given (strategy.ts; one per `--via`, made in strategies/index.ts). What
// every path shares is written once (engine.ts): the journal checked against the core before anything is skipped,
// pause and stop, totals, per-user results and events, and the stop on a core that fails every user.
// Invariant: the engine emits events and never prints, and knows no path's own options.
import type { CoreClient } from '../core-client/types.js';
import type { ValidatedRecord } from '../records/validate.js';
import type { RunEventListener, Totals, UserResult } from './events.js';
import type { Journal } from './journal/journal.js';
import type { PlanOptions } from './plan/plan.js';
import { migrationRun } from './pace/pause-gate.js';
import type { StrategyFactory } from './strategy.js';
import type { FingerprintOf } from './journal/fingerprints.js';
import { MigrationEngine } from './engine.js';

export { DEFAULT_CONCURRENCY } from './engine.js';

/** A record after validation: the engine takes records/validate's ValidatedRecord as it is. */
export type { ValidatedRecord };

export interface RunnerOptions {
  inputs: AsyncIterable<ValidatedRecord>;
  /** Number of records (from the validation pass), for progress. */
  total: number;
  core: CoreClient;
  journal: Journal;
  plan?: PlanOptions;
  /** How users are written: the `--via` path's strategy, made from its own options (strategies/index.ts). */
  strategy: StrategyFactory;
  /** Users migrated at the same time (default 16). */
  concurrency?: number;
  onEvent?: RunEventListener;
  /** Users failed in a row by HTTP 5xx answers (after retries) that stop the run as fatal (default 10). */
  maxServerErrorsInARow?: number;
  /** Called once per finished user, before its event (the caller writes the report and the failures file). */
  onUserResult?: (result: UserResult, input: ValidatedRecord) => void | Promise<void>;
  /** The fingerprint journalled for a finished user (default: its record's, sync/fingerprint.ts; a sync gives its own). */
  fingerprintOf?: FingerprintOf;
}

export interface RunSummary {
  totals: Totals;
  durationMs: number;
  /** Why the run ended early, if it did; the journal makes it resumable. */
  stopped?: 'requested' | 'fatal';
  /** The error that stopped the run (401, 402, unreachable core...). */
  fatal?: Error;
}

export interface MigrationRun {
  readonly done: Promise<RunSummary>;
  pause(): void;
  resume(): void;
  /** Stop taking new users; in-flight steps end; the journal is flushed. */
  stop(): void;
  readonly paused: boolean;
}

export function startMigration(options: RunnerOptions): MigrationRun {
  const engine = new MigrationEngine(options);
  return migrationRun(
    engine.run(),
    engine.pauses,
    () => engine.stopped !== undefined,
    () => engine.requestStop('requested'),
  );
}
