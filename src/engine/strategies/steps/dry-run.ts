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

/** Why a dry run (steps or bulk) leaves a record out: invalid, or left out by the run's settings; else undefined. */
export function whySkipped(input: ValidatedRecord, options: PlanOptions): string | undefined {
  if (!input.valid) {
    const first = input.problems.find((p) => p.severity === 'error');
    return `invalid record${first ? `: ${formatProblem(first)}` : ''}`;
  }
  return leftOut(input.record, options)?.message;
}

/**
 * The pass every path's dry run makes (steps, bulk): each record counted, one left out said skipped, the others
 * handed to `plan` (which counts and describes them through `show`), one whose plan fails (PlanError) said
 * unplannable. Only the first `showUsers` users' lines are written (all when undefined), then how many more there
 * were; the totals always cover every user.
 */
export async function dryRunPass(
  inputs: AsyncIterable<ValidatedRecord>,
  options: PlanOptions,
  write: (line: string) => void,
  showUsers: number | undefined,
  plan: (input: ValidatedRecord, summary: DryRunSummary, show: (line: string) => void) => void,
): Promise<DryRunSummary> {
  const summary: DryRunSummary = { users: 0, planned: 0, skipped: 0, unplannable: 0, calls: 0, steps: 0, stepsByKind: {} };
  const show = (line: string): void => {
    if (showUsers === undefined || summary.users <= showUsers) write(line);
  };
  for await (const input of inputs) {
    summary.users += 1;
    const id = input.record.id;
    const skipped = whySkipped(input, options);
    if (skipped) {
      summary.skipped += 1;
      show(`user ${id}: skipped (${skipped})`);
      continue;
    }
    try {
      plan(input, summary, show);
    } catch (err) {
      if (!(err instanceof PlanError)) throw err;
      summary.unplannable += 1;
      show(`user ${id}: cannot be planned: ${err.message}`);
    }
  }
  if (showUsers !== undefined && summary.users > showUsers)
    write(`... and ${summary.users - showUsers} more users (--steps lists every one)`);
  return summary;
}

/** Streams the plan of each user as text lines through `write`; returns the totals. */
export async function dryRun(
  inputs: AsyncIterable<ValidatedRecord>,
  options: PlanOptions,
  write: (line: string) => void,
  /** Users whose lines are written (every user when undefined); the totals always cover every user. */
  showUsers?: number,
): Promise<DryRunSummary> {
  const summary = await dryRunPass(inputs, options, write, showUsers, (input, summary, show) => {
    const steps = planUserSteps(input.record, options);
    const calls = steps.reduce((n, s) => n + callCount(s), 0);
    summary.planned += 1;
    summary.calls += calls;
    summary.steps += steps.length;
    show(`user ${input.record.id}: ${plural(steps.length, 'step')}, ${plural(calls, 'call')}`);
    steps.forEach((s, i) => {
      summary.stepsByKind[s.kind] = (summary.stepsByKind[s.kind] ?? 0) + 1;
      show(`  ${i + 1}. ${describeStep(s)}`);
    });
  });
  for (const [kind, n] of Object.entries(summary.stepsByKind).sort(([a], [b]) => a.localeCompare(b))) write(`  ${kind}: ${n}`);
  write(
    `dry run: ${summary.planned} users to migrate in ${summary.calls} calls (${summary.steps} steps); ` +
      `${summary.skipped} records skipped (invalid, or disabled in the source); ${summary.unplannable} not plannable. Nothing was written.`,
  );
  return summary;
}
