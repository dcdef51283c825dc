// The one rule, for `run` and the wizard alike, that decides before any write whether a plan may go to a target:
// the preflight's findings for what this plan needs (licence features, tenant login methods, the scrypt name and
// signer key), and the plan options adjusted to what the target takes (the learnt scrypt algorithm name).
import { preflight, type PlanNeeds, type PreflightReport } from '../core-client/preflight.js';
import type { CoreClient } from '../core-client/types.js';
import { UserError } from '../errors.js';
import type { PlanOptions } from './plan.js';

export interface TargetCheck {
  report: PreflightReport;
  /** Why nothing may be written (every error finding), or undefined to go ahead. */
  refusal?: UserError;
  /** The plan options to run with: the scrypt name the target takes unless the operator named one. */
  plan: PlanOptions;
}

export async function checkTargetForPlan(client: CoreClient, needs: PlanNeeds, plan: PlanOptions): Promise<TargetCheck> {
  const report = await preflight(client, { needs, scryptAlgorithmName: plan.scryptAlgorithmName });
  const errors = report.findings.filter((f) => f.level === 'error');
  const refusal = errors.length > 0 ? new UserError(`nothing was written: ${errors.map((f) => f.message).join(' ')}`) : undefined;
  const learnt = plan.scryptAlgorithmName ?? report.scryptAlgorithmName;
  return { report, refusal, plan: learnt !== undefined ? { ...plan, scryptAlgorithmName: learnt } : plan };
}
