// A run that would drop a whole class of users for one missing setting (no hash config for scrypt hashes, a
// companion file not given) is refused before any write, with the fix named; `--allow-partial` (the wizard's `a`
// on the plan screen) goes on knowingly. The readers find such losses (sources/findings.ts, the validation
// report's `summary.droppedClasses`); this is the decision, the same for both shells.
import { formatCount } from '../numbers.js';
import type { ValidationReport } from '../records/validate.js';
import type { DroppedClass } from '../sources/findings.js';
import { Refusal } from './events.js';

/** One class of users lost for one missing setting, as the readers state it. */
export type ClassLoss = DroppedClass;

/** The losses the validation found (none when the report has no such finding). */
export function classLosses(report: ValidationReport): ClassLoss[] {
  return report.summary.droppedClasses ?? [];
}

/** "3 users would lose their password: <because>" (the loss without its fix). */
export function lossLine(l: ClassLoss): string {
  const who = l.users === undefined ? 'Users' : `${formatCount(l.users)} user${l.users === 1 ? '' : 's'}`;
  return `${who} would lose ${l.loses}: ${l.because}`;
}

/** The refusal for these losses, or undefined when there are none or the operator allowed them. */
export function partialRefusal(losses: ClassLoss[], allowPartial: boolean): Refusal | undefined {
  if (losses.length === 0 || allowPartial) return undefined;
  return new Refusal(
    'partial',
    `nothing was written: ${losses.map(lossLine).join('; ')}`,
    `${losses.map((l) => l.fix.replace(/,? or run with --allow-partial.*$/, '')).join('; ')}; or go on without them knowingly (--allow-partial)`,
  );
}
