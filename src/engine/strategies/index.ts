// The write paths, one entry per `--via` value: how a run takes its users (the strategy, made over the engine's
// context) and what the path would send without a core (its dry run). The engine and the plan operation reach a
// path only through this map, so a new path is a new folder under strategies/ and one entry here.
import type { EngineContext, Strategy } from '../strategy.js';
import type { ValidatedRecord } from '../../records/validate.js';
import type { PlanOptions } from '../plan/plan.js';
import { bulkStrategy } from './bulk/user.js';
import { dryRunBulk } from './bulk/dry-run.js';
import { DEFAULT_STAGED_BATCH, stagedStrategy } from './staged/strategy.js';
import { stepsStrategy } from './steps/strategy.js';
import { dryRun, type DryRunSummary } from './steps/dry-run.js';
import type { Via } from './via.js';

export interface WritePath {
  strategy(ctx: EngineContext): Strategy;
  /** Plan every record and describe the requests, contacting no core and writing no file. */
  dryRun(
    inputs: AsyncIterable<ValidatedRecord>,
    plan: PlanOptions & { tenantId?: string },
    write: (line: string) => void,
    showUsers?: number,
  ): Promise<DryRunSummary>;
}

export const WRITE_PATHS: Record<Via, WritePath> = {
  steps: { strategy: stepsStrategy, dryRun },
  bulk: { strategy: bulkStrategy, dryRun: (inputs, plan, write, show) => dryRunBulk(inputs, plan, 'bulk', write, show) },
  'bulk-staged': {
    strategy: stagedStrategy,
    dryRun: (inputs, plan, write, show) => dryRunBulk(inputs, plan, 'bulk-staged', write, show, DEFAULT_STAGED_BATCH),
  },
};
