// What the sync hands its strategy (strategy.ts): the users it must touch and why, what the migration made of
// them, the previous export's records where it still has them, and a tally of the changes applied.
// Invariant: a change is tallied as applied only once the core shows it.
import type { CanonicalUser } from '../../records/types.js';
import type { StepResult } from '../journal/journal.js';
import type { Step } from '../plan/steps.js';
import type { UserHistory } from './chain.js';
import type { Part } from './fingerprint.js';

/** Kinds of change a sync reports (the dry run predicts them; the run counts them as applied). */
export const CHANGE_KINDS = [
  'new',
  'password',
  'email',
  'verified',
  'phone',
  'logins added',
  'logins removed',
  'logins changed',
  'devices added',
  'devices removed',
  'one-time-code factors',
  'metadata',
  'roles added',
  'roles removed',
  'removed',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export type Removal = 'gone' | 'disabled';

export interface SyncWork {
  /** Users in the core whose fingerprint changed: the parts that did. */
  changed: Map<string, Part[]>;
  /** Users in the core the export no longer has, or disabled under `--disabled skip`: removed with --remove-missing. */
  removals: Map<string, Removal>;
  removeMissing: boolean;
  histories: Map<string, UserHistory>;
  /** The previous export's record of a changed user, where that file still has it unchanged. */
  olds: Map<string, CanonicalUser>;
  /** Emails (normalised) this sync moves away from: a user moving onto one waits for it (plan-email.ts). */
  leaving: Set<string>;
  /** Count an applied step. */
  tally(step: Step | 'removed', result: StepResult): void;
  /** Changes applied so far, by kind (steps that wrote something). */
  readonly applied: Map<ChangeKind, number>;
}

/** The kind of change a step makes, for the tally and the dry run. */
export function kindOf(step: Step): ChangeKind | undefined {
  switch (step.kind) {
    case 'replace-password-hash':
      return 'password';
    case 'change-email':
      return 'email';
    case 'verify-email':
    case 'unverify-email':
      return 'verified';
    case 'passwordless-add-contact':
      return step.key === 'sync:phone:phone' ? 'phone' : 'one-time-code factors';
    case 'passwordless-signinup':
      return 'one-time-code factors';
    case 'thirdparty-signinup':
      return 'logins added';
    case 'update-thirdparty':
      return 'logins changed';
    case 'remove-login':
      return step.key.includes('thirdparty:') ? 'logins removed' : step.key.endsWith(':otp') ? 'one-time-code factors' : 'phone';
    case 'import-totp':
      return 'devices added';
    case 'remove-totp-device':
      return 'devices removed';
    case 'set-metadata':
      return 'metadata';
    case 'assign-role':
      return 'roles added';
    case 'remove-role':
      return 'roles removed';
    default:
      return undefined;
  }
}

export function newSyncWork(removeMissing: boolean): SyncWork {
  const applied = new Map<ChangeKind, number>();
  return {
    changed: new Map(),
    removals: new Map(),
    removeMissing,
    histories: new Map(),
    olds: new Map(),
    leaving: new Set(),
    applied,
    tally(step, result) {
      if (result !== 'created') return;
      const kind = step === 'removed' ? 'removed' : kindOf(step);
      if (kind) applied.set(kind, (applied.get(kind) ?? 0) + 1);
    },
  };
}
