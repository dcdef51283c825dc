// The one rule, for `run` and the wizard alike, that decides before any write whether a plan may go to a target:
// the preflight's findings for what this plan needs (licence features, tenant login methods, the scrypt name and
// signer key), and the plan options adjusted to what the target takes (the learnt scrypt algorithm name).
// Invariant: a plan the target cannot take is refused before any write.
import { preflight, type PlanNeeds, type PreflightReport } from '../core-client/preflight.js';
import type { CoreClient } from '../core-client/types.js';
import { CoreHttpError } from '../core-client/errors.js';
import { UserError } from '../errors.js';
import type { PlanOptions } from './plan/plan.js';
import type { Via } from './strategies/via.js';

/**
 * Whether the core offers the bulk-import API, without a write: GET /bulk-import/users/count (read-only).
 * Undefined when it does; otherwise the core's answer (a core before 10.0 answers 404; the reference refuses
 * the API on its in-memory storage).
 */
export async function bulkImportOffered(client: CoreClient): Promise<string | undefined> {
  try {
    await client.withRetry({ retries: 1, baseDelayMs: 100, maxDelayMs: 500 }).bulkImport.countUsers();
    return undefined;
  } catch (err) {
    if (err instanceof CoreHttpError) return `HTTP ${err.status} ${err.body.slice(0, 200)}`.trim();
    throw err;
  }
}

function refuseVia(via: Via, client: CoreClient, answer: string): string {
  return (
    `--via ${via} needs the core's bulk-import API (core 10.0 or later, on a database), and the core at ${client.url} ` +
    `does not offer it (GET /bulk-import/users/count answered ${answer}); run with --via steps (the per-user endpoints; ` +
    'users then join on the day of the migration).'
  );
}

export interface TargetCheck {
  report: PreflightReport;
  /** Why nothing may be written (every error finding), or undefined to go ahead. */
  refusal?: UserError;
  /** The plan options to run with: the scrypt name the target takes unless the operator named one. */
  plan: PlanOptions;
}

export async function checkTargetForPlan(
  client: CoreClient,
  needs: PlanNeeds,
  plan: PlanOptions,
  via: Via = 'steps',
): Promise<TargetCheck> {
  const report = await preflight(client, { needs, scryptAlgorithmName: plan.scryptAlgorithmName });
  if (via !== 'steps' && !report.findings.some((f) => f.level === 'error')) {
    const bulk = await bulkImportOffered(client);
    if (bulk !== undefined)
      report.findings.push({ level: 'error', code: 'bulk-import-unavailable', message: refuseVia(via, client, bulk) });
  }
  const errors = report.findings.filter((f) => f.level === 'error');
  const refusal = errors.length > 0 ? new UserError(`nothing was written: ${errors.map((f) => f.message).join(' ')}`) : undefined;
  const learnt = plan.scryptAlgorithmName ?? report.scryptAlgorithmName;
  return { report, refusal, plan: learnt !== undefined ? { ...plan, scryptAlgorithmName: learnt } : plan };
}
