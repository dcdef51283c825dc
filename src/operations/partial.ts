// A run that would drop a whole class of users for one missing setting (no hash config for scrypt hashes, a
// companion file not given) is refused before any write, with the fix named; `--allow-partial` goes on knowingly.
// The validator finds such losses (records/validate.ts: the report's `summary.classLosses`); this is the decision.
import type { ValidationReport } from '../records/validate.js';
import { Refusal } from './events.js';

/** One class of users lost for one missing setting, as the validation report states it. */
export interface ClassLoss {
  /** A stable code, e.g. `hash-config-missing`, `companion-file-missing`. */
  code: string;
  /** How many users lose something. */
  users: number;
  /** What they lose and why, one sentence (e.g. "5 users' scrypt passwords: no hash config was given"). */
  message: string;
  /** The setting that brings them back, in words (e.g. "give the project's hash config: --hash-config FILE"). */
  fix: string;
}

/** The losses the validation found (none when the report has no such finding). */
export function classLosses(report: ValidationReport): ClassLoss[] {
  return (report.summary as { classLosses?: ClassLoss[] }).classLosses ?? [];
}

/** The refusal for these losses, or undefined when there are none or the operator allowed them. */
export function partialRefusal(losses: ClassLoss[], allowPartial: boolean): Refusal | undefined {
  if (losses.length === 0 || allowPartial) return undefined;
  const what = losses.map((l) => l.message).join('; ');
  const fix = losses.map((l) => l.fix).join('; ');
  return new Refusal(
    'partial',
    `nothing was written: ${what}`,
    `${fix}; or go on without them knowingly (--allow-partial, or "a" in the wizard)`,
  );
}
