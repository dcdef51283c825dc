// The plan screen's list of calls, for both shells: how many of each request the plan sends (per-user steps, in
// the words of the engine's step table), or what the bulk path sends. The shells hold no HTTP path of their own.
// Invariant: the HTTP paths come from the engine's step table, never from a shell.
import type { DryRunSummary } from '../engine/strategies/steps/dry-run.js';
import { requestsOf } from '../engine/strategies/steps/rules.js';
import type { StepKind } from '../engine/plan/steps.js';
import { VIA_EXPLAINED, type Via } from '../engine/strategies/via.js';

export interface PlannedCalls {
  what: string;
  count: number;
}

export function plannedCalls(via: Via, s: DryRunSummary): PlannedCalls[] {
  if (via !== 'steps') return [{ what: VIA_EXPLAINED[via], count: s.planned }];
  return Object.entries(s.stepsByKind).map(([kind, count]) => ({ what: requestsOf(kind as StepKind), count: count ?? 0 }));
}
