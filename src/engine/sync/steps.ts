// The step kinds a sync adds to plan.ts's (a user already in the core, brought to a newer export's state). They
// are entries of the one exactly-once rule (sync/step-rules.ts, spread into strategies/steps/rules.ts): each says how to
// find its effect in the core, so a repeat or an unclear answer is settled by reading back, never guessed.
// Invariant: each kind says how to find its effect in the core, so a repeat is settled by reading back, never guessed.
import type { LegacyEntry } from 'auth-migrate-signin/protocol';
import type { StepRef } from '../plan/steps.js';

export type SyncStep =
  /** A changed hash imported over the old one (the login is found by its email first: never a new user). */
  | {
      kind: 'replace-password-hash';
      key: 'sync:password';
      recipeUserId: string;
      email: string;
      passwordHash: string;
      hashingAlgorithm: string;
    }
  /** An email-password login's email changed: PUT /recipe/user. */
  | { kind: 'change-email'; key: string; recipeUserId: string; email: string }
  /** The email is no longer verified in the source. */
  | { kind: 'unverify-email'; key: string; user: StepRef; email: string }
  /** A third-party login's email (or its verified flag) changed: its sign-in-up again, which updates it. */
  | {
      kind: 'update-thirdparty';
      key: string;
      recipeUserId: string;
      thirdPartyId: string;
      thirdPartyUserId: string;
      email: string;
      isVerified: boolean;
    }
  /** A TOTP device the migration created and the source no longer has. */
  | { kind: 'remove-totp-device'; key: string; user: StepRef; deviceName: string }
  /** A login method the migration created and the source no longer has (the user keeps its other logins). */
  | { kind: 'remove-login'; key: string; recipeUserId: string; description: string }
  /** Metadata keys brought to the export's values; keys the previous export had and this one has not, removed. */
  | { kind: 'set-metadata'; key: 'sync:metadata'; user: StepRef; set: Record<string, unknown>; remove: string[] }
  /**
   * Migration at first sign-in, the legacy hash changed in the export: the waiting entry replaced by the new one
   * (signed with the run's secret), the old kept for a rollback. Nothing when no entry waits.
   */
  | { kind: 'replace-legacy-entry'; key: 'sync:legacy-entry'; recipeUserId: string; entry: LegacyEntry }
  /**
   * The export now has a hash the core takes: before it is imported, the waiting entry ends (`via: sync`), kept
   * with the placeholder's hash for a rollback. Nothing when no entry waits.
   */
  | { kind: 'end-legacy-entry'; key: 'sync:legacy-end'; recipeUserId: string; placeholderHash?: string }
  /** A role the migration gave and the source no longer gives. */
  | { kind: 'remove-role'; key: string; user: StepRef; role: string; tenantId?: string };

export type SyncStepKind = SyncStep['kind'];
