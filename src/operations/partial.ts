// A run that would drop a whole class of users for one missing setting (no hash config for scrypt hashes, a
// companion file not given, hashes the core cannot take with no --unusable-hashes chosen) is refused before any
// write, with the fix named; `--allow-partial` (the wizard's `a` on the plan screen) goes on knowingly. The readers
// find the first two (sources/findings.ts, the validation report's `summary.droppedClasses`); the validation counts
// the third (`summary.unusableHashes`). This is the decision, the same for both shells.
// Invariant: a whole class of users is never dropped silently: the run is refused unless --allow-partial is given.
import { formatCount } from '../numbers.js';
import type { ValidationReport } from '../records/validate.js';
import type { DroppedClass } from '../sources/findings.js';
import { Refusal } from './events.js';

/** One class of users lost for one missing setting, as the readers state it. */
export type ClassLoss = Omit<DroppedClass, 'rule'> & { rule: DroppedClass['rule'] | 'unusable-hashes.unchosen' };

/** What the run's settings chose (an option nobody chose is a missing setting). */
export interface LossSettings {
  /** The --unusable-hashes policy chosen (flags or profile); undefined: none chosen, so the users are left out. */
  unusableHashes?: string;
}

/**
 * The losses the validation found (none when the report has no such finding): the readers' whole classes, and the
 * users whose hashes the core cannot take when no --unusable-hashes was chosen (every one of them would be left out).
 */
export function classLosses(report: ValidationReport, settings: LossSettings = {}): ClassLoss[] {
  const losses: ClassLoss[] = [...(report.summary.droppedClasses ?? [])];
  const u = report.summary.unusableHashes;
  if (u && u.users > 0 && settings.unusableHashes === undefined) losses.push(unusableLoss(u.users, u.byAlgorithm));
  return losses;
}

function unusableLoss(users: number, byAlgorithm: Record<string, number>): ClassLoss {
  const who = `${formatCount(users)} user${users === 1 ? '' : 's'}`;
  const algorithms = Object.entries(byAlgorithm)
    .map(([a, n]) => `${a} ${formatCount(n)}`)
    .join(', ');
  const parts = {
    rule: 'unusable-hashes.unchosen' as const,
    loses: 'their whole account (left out of the run)',
    because: `their password hashes (${algorithms}) are ones the core cannot take, and no --unusable-hashes was chosen`,
    fix:
      'give --unusable-hashes migrate-at-sign-in (imported whole; the app checks the old hash at first sign-in, auth-migrate/signin) ' +
      'or --unusable-hashes without-password (imported without a password), or --unusable-hashes skip to leave them out',
  };
  return { ...parts, users, message: `${who} would lose ${parts.loses}: ${parts.because}; ${parts.fix}` };
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
