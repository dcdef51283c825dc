// `run --via bulk|bulk-staged --dry-run`: the bulk-import body of each user (password hashes and TOTP secrets
// masked), without contacting a core or writing a file; the same totals as the steps dry run.
// Invariant: no core is contacted and no file written; hashes and TOTP secrets are masked.
import { maskBulkUser, planBulkUser, type BulkPlanOptions } from './plan.js';
import { dryRunPass, type DryRunSummary } from '../steps/dry-run.js';
import type { ValidatedRecord } from '../../runner.js';
import type { Via } from '../via.js';
import { USERS_PAGE } from '../staged/slices.js';

/** Requests per user when all goes well (bulk): the look-up, then the import. */
const BULK_CALLS_PER_USER = 2;

/**
 * The requests of `planned` users staged in uploads of `batch`: the uploads, and the listing of the core read twice
 * (what it holds before, then the users back); the job's progress (a few counts a second) comes on top.
 */
export const stagedRequests = (planned: number, batch: number): number => Math.ceil(planned / batch) + 2 * Math.ceil(planned / USERS_PAGE);

export async function dryRunBulk(
  inputs: AsyncIterable<ValidatedRecord>,
  options: BulkPlanOptions,
  via: Exclude<Via, 'steps'>,
  write: (line: string) => void,
  showUsers?: number,
  stagedBatch = 10_000,
): Promise<DryRunSummary> {
  const summary = await dryRunPass(inputs, options, write, showUsers, (input, summary, show) => {
    const body = planBulkUser(input.record, options);
    summary.planned += 1;
    summary.steps += 1;
    const where = via === 'bulk' ? 'POST /bulk-import/import' : 'staged in POST /bulk-import/users';
    show(`user ${input.record.id}: ${body.loginMethods.length} login method(s), ${where}`);
    show(`  ${JSON.stringify(maskBulkUser(body))}`);
  });
  summary.calls = via === 'bulk' ? BULK_CALLS_PER_USER * summary.planned : stagedRequests(summary.planned, stagedBatch);
  write(
    `dry run (--via ${via}): ${summary.planned} users to migrate in about ${summary.calls} requests` +
      `${via === 'bulk-staged' ? ` (uploads of up to ${stagedBatch} users, and the listing of the core, ${USERS_PAGE} users a request, read twice) plus the job's progress` : ''}; ` +
      `${summary.skipped} records skipped (invalid, or disabled in the source); ${summary.unplannable} not plannable. Nothing was written.`,
  );
  return summary;
}
