// The write paths, one entry per `--via` value: the path's strategy, made from the path's own options (the engine
// then runs it over its context), and what the path would send without a core (its dry run). The operations reach
// a path only through this map, so a new path is a new folder under strategies/, its options, and one entry here.
// Invariant: a path's knobs go to its own factory; the engine is handed a made strategy and never sees them.
import type { StrategyFactory } from '../strategy.js';
import type { ValidatedRecord } from '../../records/validate.js';
import type { PlanOptions } from '../plan/plan.js';
import { bulkStrategy } from './bulk/user.js';
import { dryRunBulk } from './bulk/dry-run.js';
import { DEFAULT_STAGED_BATCH, stagedStrategy, type StagedOptions } from './staged/strategy.js';
import { stepsStrategy } from './steps/strategy.js';
import { dryRun, type DryRunSummary } from './steps/dry-run.js';
import type { Via } from './via.js';

export type { StagedOptions };

/** Each path's own options (`void`: the path has none). */
export interface WritePathOptions {
  steps: void;
  bulk: void;
  'bulk-staged': StagedOptions;
}

export interface WritePath<O> {
  /** The path's strategy for one run, made from its options. */
  strategy(options: O): StrategyFactory;
  /** Plan every record and describe the requests, contacting no core and writing no file. */
  dryRun(
    inputs: AsyncIterable<ValidatedRecord>,
    plan: PlanOptions & { tenantId?: string },
    write: (line: string) => void,
    showUsers?: number,
  ): Promise<DryRunSummary>;
}

export const WRITE_PATHS: { [V in Via]: WritePath<WritePathOptions[V]> } = {
  steps: { strategy: () => stepsStrategy, dryRun },
  bulk: { strategy: () => bulkStrategy, dryRun: (inputs, plan, write, show) => dryRunBulk(inputs, plan, 'bulk', write, show) },
  'bulk-staged': {
    strategy: stagedStrategy,
    dryRun: (inputs, plan, write, show) => dryRunBulk(inputs, plan, 'bulk-staged', write, show, DEFAULT_STAGED_BATCH),
  },
};
