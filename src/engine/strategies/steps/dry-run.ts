// Dry run: plan every valid record and describe the calls, without contacting a core or writing a file.
// Invariant: no core is contacted and no file written; the steps described never show a hash, secret or code.
import { formatProblem } from '../../../records/types.js';
import { leftOut, planUserSteps, PlanError, type PlanOptions } from '../../plan/plan.js';
import type { ValidatedRecord } from '../../runner.js';
import { callCount, describeStep } from './rules.js';
import type { StepKind } from '../../plan/steps.js';

export interface DryRunSummary {
  users: number;
  planned: number;
  skipped: number;
  unplannable: number;
  calls: number;
  steps: number;
  stepsByKind: Partial<Record<StepKind, number>>;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Streams the plan of each user as text lines through `write`; returns the totals. */
/** Why a dry run (steps or bulk) leaves a record out: invalid, or left out by the run's settings; else undefined. */
export function whySkipped(input: ValidatedRecord, options: PlanOptions): string | undefined {
  if (!input.valid) {
    const first = input.problems.find((p) => p.severity === 'error');
    return `invalid record${first ? `: ${formatProblem(first)}` : ''}`;
  }
  return leftOut(input.record, options)?.message;
}

export async function dryRun(
  inputs: AsyncIterable<ValidatedRecord>,
  options: PlanOptions,
  write: (line: string) => void,
  /** Users whose lines are written (every user when undefined); the totals always cover every user. */
  showUsers?: number,
): Promise<DryRunSummary> {
  const full = write;
  let shown = 0;
  let current = '';
  // Only the first `showUsers` users' lines go out; the user line decides for its step lines.
  write = (line: string): void => {
    if (showUsers === undefined) return full(line);
    if (line.startsWith('user ')) {
      current = line;
      shown += 1;
    }
    if (shown <= showUsers && current !== '') full(line);
  };
  const summary: DryRunSummary = { users: 0, planned: 0, skipped: 0, unplannable: 0, calls: 0, steps: 0, stepsByKind: {} };
  for await (const input of inputs) {
    summary.users += 1;
    const id = input.record.id;
    const skipped = whySkipped(input, options);
    if (skipped) {
      summary.skipped += 1;
      write(`user ${id}: skipped (${skipped})`);
      continue;
    }
    try {
      const steps = planUserSteps(input.record, options);
      const calls = steps.reduce((n, s) => n + callCount(s), 0);
      summary.planned += 1;
      summary.calls += calls;
      summary.steps += steps.length;
      write(`user ${id}: ${plural(steps.length, 'step')}, ${plural(calls, 'call')}`);
      steps.forEach((s, i) => {
        summary.stepsByKind[s.kind] = (summary.stepsByKind[s.kind] ?? 0) + 1;
        write(`  ${i + 1}. ${describeStep(s)}`);
      });
    } catch (err) {
      if (!(err instanceof PlanError)) throw err;
      summary.unplannable += 1;
      write(`user ${id}: cannot be planned: ${err.message}`);
    }
  }
  if (showUsers !== undefined && summary.users > showUsers) {
    full(`... and ${summary.users - showUsers} more users (--steps lists every one)`);
  }
  for (const [kind, n] of Object.entries(summary.stepsByKind).sort(([a], [b]) => a.localeCompare(b))) full(`  ${kind}: ${n}`);
  full(
    `dry run: ${summary.planned} users to migrate in ${summary.calls} calls (${summary.steps} steps); ` +
      `${summary.skipped} records skipped (invalid, or disabled in the source); ${summary.unplannable} not plannable. Nothing was written.`,
  );
  return summary;
}
