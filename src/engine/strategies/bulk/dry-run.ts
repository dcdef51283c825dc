// `run --via bulk|bulk-staged --dry-run`: the bulk-import body of each user (password hashes and TOTP secrets
// masked), without contacting a core or writing a file; the same totals as the steps dry run.
// Invariant: no core is contacted and no file written; hashes and TOTP secrets are masked.
import { maskBulkUser, planBulkUser, type BulkPlanOptions } from './plan.js';
import { dryRunPass, type DryRunSummary } from '../steps/dry-run.js';
import type { ValidatedRecord } from '../../runner.js';
import type { Via } from '../via.js';

/** Requests per user when all goes well: the look-up, then the import (bulk); staged: none (a share of a batch). */
const CALLS: Record<Exclude<Via, 'steps'>, number> = { bulk: 2, 'bulk-staged': 0 };

export async function dryRunBulk(
  inputs: AsyncIterable<ValidatedRecord>,
  options: BulkPlanOptions,
  via: Exclude<Via, 'steps'>,
  write: (line: string) => void,
  showUsers?: number,
): Promise<DryRunSummary> {
  const summary = await dryRunPass(inputs, options, write, showUsers, (input, summary, show) => {
    const body = planBulkUser(input.record, options);
    summary.planned += 1;
    summary.steps += 1;
    summary.calls += CALLS[via];
    const where = via === 'bulk' ? 'POST /bulk-import/import' : 'staged in POST /bulk-import/users';
    show(`user ${input.record.id}: ${body.loginMethods.length} login method(s), ${where}`);
    show(`  ${JSON.stringify(maskBulkUser(body))}`);
  });
  write(
    `dry run (--via ${via}): ${summary.planned} users to migrate in about ${summary.calls} requests` +
      `${via === 'bulk-staged' ? " plus one upload per batch, the listing of the core (500 users a request) twice and the job's progress" : ''}; ` +
      `${summary.skipped} records skipped (invalid, or disabled in the source); ${summary.unplannable} not plannable. Nothing was written.`,
  );
  return summary;
}
