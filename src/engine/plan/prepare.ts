// The validation pass of a run: every record validated (nothing written), plus what the plan will need from
// the core (paid features) and how many source items cannot become users at all.
// Invariant: no core is contacted: the needs are learnt from the records alone.
import type { ReadOptions } from '../../sources/index.js';
import type { CanonicalUser } from '../../records/types.js';
import {
  KEEP_RECORDS_UP_TO,
  validateSources,
  type ValidatedRecord,
  type ValidateOptions,
  type ValidationReport,
} from '../../records/validate.js';
import type { LoginMethodName, PlanNeeds } from '../../core-client/preflight.js';
import { planUserSteps, type PlanOptions } from './plan.js';

export type { PlanNeeds } from '../../core-client/preflight.js';

/** A fresh needs record: nothing needed yet. */
export function noNeeds(): Required<PlanNeeds> {
  return { totp: false, linking: false, scrypt: false, loginMethods: [] };
}

export interface PreparedRun {
  report: ValidationReport;
  needs: Required<PlanNeeds>;
  /** Errors that belong to no record: lines or rows that could not become a user (e.g. a TOTP row matching no user). */
  unreadable: number;
}

export async function prepareRun(
  files: string[],
  readOptions: ReadOptions & ValidateOptions,
  plan: PlanOptions,
  /** Each validated record as it is read (the wizard's preview fills its table; `run --sync` compares it with the earlier run). */
  onRecord?: (r: ValidatedRecord) => void,
): Promise<PreparedRun> {
  let recordErrors = 0;
  const needs = noNeeds();
  const report = await validateSources(files, {
    ...readOptions,
    // A small run's records go from this pass to the run's (streamValidatedRecords) without a second reading.
    keepUpTo: KEEP_RECORDS_UP_TO,
    onRecord: (r) => {
      for (const p of r.problems) if (p.severity === 'error') recordErrors += 1;
      // Once the plan needs everything it can, the rest of the records cannot add to it: not planned for nothing.
      if (r.valid && !needsAll(needs)) noteNeeds(r.record, plan, needs);
      onRecord?.(r);
    },
  });
  const unreadable = Math.max(0, report.summary.errors - recordErrors - report.lateErrors);
  return { report, needs, unreadable };
}

const METHOD_OF: Partial<Record<string, LoginMethodName>> = {
  'import-password': 'emailpassword',
  'thirdparty-signinup': 'thirdparty',
  'passwordless-signinup': 'passwordless',
};
const METHODS = new Set(Object.values(METHOD_OF)).size;

/** Whether `needs` already holds every need a record can add. */
function needsAll(needs: Required<PlanNeeds>): boolean {
  return needs.totp && needs.linking && needs.scrypt && needs.loginMethods.length === METHODS;
}

/** Fold one record's needs into `needs` (what the target must offer for this plan). */
export function noteNeeds(record: CanonicalUser, plan: PlanOptions, needs: Required<PlanNeeds>): void {
  try {
    for (const step of planUserSteps(record, plan)) {
      if (step.kind === 'import-totp') needs.totp = true;
      if (step.kind === 'create-primary') needs.linking = true;
      if (record.password?.algorithm === 'external_scrypt' && step.kind === 'import-password') needs.scrypt = true;
      const method = METHOD_OF[step.kind];
      if (method && !needs.loginMethods.includes(method)) needs.loginMethods.push(method);
    }
  } catch {
    // An unplannable record fails on its own in the migration pass.
  }
}
