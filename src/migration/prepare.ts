// The validation pass of a run: every record validated (nothing written), plus what the plan will need from
// the core (paid features) and how many source items cannot become users at all.
import type { ReadOptions } from '../sources/index.js';
import type { CanonicalUser } from '../records/types.js';
import { validateSources, type ValidateOptions, type ValidationReport } from '../records/validate.js';
import { planUserSteps, type PlanOptions } from './plan.js';

export interface PlanNeeds {
  /** Some user has TOTP devices (the core needs the MFA feature). */
  totp: boolean;
  /** Some user has several login methods or one-time-code factors (account linking). */
  linking: boolean;
}

export interface PreparedRun {
  report: ValidationReport;
  needs: PlanNeeds;
  /** Errors that belong to no record: lines or rows that could not become a user (e.g. a TOTP row matching no user). */
  unreadable: number;
}

export async function prepareRun(files: string[], readOptions: ReadOptions & ValidateOptions, plan: PlanOptions): Promise<PreparedRun> {
  let recordErrors = 0;
  const needs: PlanNeeds = { totp: false, linking: false };
  const report = await validateSources(files, {
    ...readOptions,
    onRecord: (r) => {
      for (const p of r.problems) if (p.severity === 'error') recordErrors += 1;
      if (r.valid && !(needs.totp && needs.linking)) noteNeeds(r.record, plan, needs);
    },
  });
  let lateErrors = 0;
  for (const list of report.lateProblems?.values() ?? []) lateErrors += list.length;
  const unreadable = Math.max(0, report.summary.errors - recordErrors - lateErrors);
  return { report, needs, unreadable };
}

function noteNeeds(record: CanonicalUser, plan: PlanOptions, needs: PlanNeeds): void {
  try {
    for (const step of planUserSteps(record, plan)) {
      if (step.kind === 'import-totp') needs.totp = true;
      if (step.kind === 'create-primary') needs.linking = true;
    }
  } catch {
    // An unplannable record fails on its own in the migration pass.
  }
}
