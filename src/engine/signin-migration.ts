// The sign-in migration file: one JSON line per user whose password hash the core cannot take, with the source
// id, the core's user id when the run created or found the user, and the legacy hash with its parameters. The
// app's backend reads it to check such a password once at first sign-in, then sets it in the core
// (docs/migration.md, "Migration at first sign-in"). report.ts writes it beside the report: 0600, never through a
// link, created only when there is a line to write, rewritten whole by every run of the journal (resumed users too).
// Invariant: the file is 0600, never written through a link, and made only when it has a line.
import type { UserResult } from './events.js';
import type { ValidatedRecord } from './runner.js';
import type { PlanOptions } from './plan/plan.js';
import { disabledPolicyText } from './plan/policies.js';

export interface SignInMigrationLine {
  sourceId: string;
  email?: string;
  /** The id to sign the user in as (the external id when mapped); absent when nothing was created. */
  userId?: string;
  /** imported / alreadyPresent: the rest of the user is in the core; skipped: nothing was created (see reason). */
  outcome: UserResult['outcome'];
  reason?: string;
  /** Disabled or blocked in the source (imported under --disabled import|role:NAME): the app must refuse it. */
  disabled?: true;
  /** The run's policy for such a user: `import` or `role:NAME` (absent when the run was not told). */
  disabledPolicy?: string;
  /** Under `--disabled role:NAME`: the role the user has (or, created at first sign-in, must get) so the app refuses it. */
  role?: string;
  algorithm: string;
  hash: string;
  salt?: string;
  params?: Record<string, string | number>;
}

export function signInLine(result: UserResult, input: ValidatedRecord, plan?: PlanOptions): SignInMigrationLine | undefined {
  const legacy = input.record.legacyPassword;
  if (!legacy || input.record.password) return undefined;
  // A disabled user the run leaves out (--disabled skip, or invalid) must not get in through the app's legacy check
  // either; one that --disabled import|role lets in but cannot create is listed (SIGN_IN_MIGRATION).
  if (input.record.disabled && result.outcome === 'skipped' && result.status !== 'SIGN_IN_MIGRATION') return undefined;
  const line: SignInMigrationLine = { sourceId: result.id, outcome: result.outcome, algorithm: legacy.algorithm, hash: legacy.hash };
  if (input.record.email !== undefined) line.email = input.record.email;
  if (result.userId !== undefined) line.userId = result.userId;
  // The disabled policy follows the user to the app's legacy check (issue 20 item 5): a disabled user is marked.
  if (input.record.disabled) {
    line.disabled = true;
    if (plan?.disabled !== undefined) line.disabledPolicy = disabledPolicyText(plan.disabled);
    if (typeof plan?.disabled === 'object') line.role = plan.disabled.role;
  }
  if (result.outcome === 'skipped' || result.outcome === 'failed') line.reason = result.status ?? 'skipped';
  if (legacy.salt !== undefined) line.salt = legacy.salt;
  if (legacy.params !== undefined) line.params = legacy.params;
  return line;
}
