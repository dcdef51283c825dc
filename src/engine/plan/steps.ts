// The typed steps a user's migration is made of; what each kind does, costs and says is its entry in strategies/steps/rules.ts.
// Invariant: a step's key is unique among one user's steps: the journal knows the step by it.
import type { SyncStep } from '../sync/steps.js';
import type { LegacyEntry } from 'auth-migrate-signin/protocol';

/** Key of the step whose recipe user a later step acts on (e.g. `password`, `phone`, `otp`). */
export type StepRef = string;

export type Step =
  | {
      kind: 'import-password';
      key: 'password';
      email: string;
      passwordHash: string;
      hashingAlgorithm: string;
      /** The user's external id, when one is mapped: a user the core holds under it is never created again. */
      externalUserId?: string;
    }
  /** `--update-existing`: the source's hash over that of a user that was there before the run (counted as replaced). */
  | { kind: 'replace-password'; key: 'password-replace'; user: StepRef; email: string; passwordHash: string; hashingAlgorithm: string }
  | {
      kind: 'thirdparty-signinup';
      key: string;
      thirdPartyId: string;
      thirdPartyUserId: string;
      email: string;
      isVerified: boolean;
      externalUserId?: string;
    }
  | {
      kind: 'passwordless-signinup';
      key: 'phone' | 'otp';
      /** Exactly one contact: create a code for it, consume it (2 calls). */
      email?: string;
      phoneNumber?: string;
      externalUserId?: string;
    }
  | { kind: 'passwordless-add-contact'; key: string; user: StepRef; email?: string; phoneNumber?: string }
  | { kind: 'map-user-id'; key: 'map'; user: StepRef; externalUserId: string }
  | {
      kind: 'verify-email';
      /** `verify-email:<ref>` */
      key: string;
      /** The login method whose email the source says is verified and whose creation call did not mark it. */
      user: StepRef;
      recipeId: 'emailpassword' | 'passwordless';
      email: string;
    }
  | { kind: 'create-primary'; key: 'primary'; user: StepRef }
  | { kind: 'link-accounts'; key: string; user: StepRef; primary: StepRef }
  | {
      kind: 'import-totp';
      key: string;
      user: StepRef;
      deviceName: string;
      /** Whether the source named the device (otherwise the planner chose the name the core would give). */
      namedInSource: boolean;
      secretKey: string;
      period: number;
      skew: number;
    }
  /** Top-level metadata keys the core does not have yet (keys already there are left as they are). */
  | { kind: 'update-metadata'; key: 'metadata'; user: StepRef; metadata: Record<string, unknown> }
  /** The role exists in the app (created once per run). */
  | { kind: 'create-role'; key: string; role: string }
  /** The user has the role in a tenant (the run's tenant when none is given). */
  | { kind: 'assign-role'; key: string; user: StepRef; role: string; tenantId?: string }
  /**
   * Migration at first sign-in: the legacy hash stored in the metadata of the `login` (email-password) user, only
   * when this run created that login; never over an entry or a done marker already there (src/signin/entry.ts).
   */
  | { kind: 'legacy-entry'; key: 'legacy-entry'; user: StepRef; login: StepRef; entry: LegacyEntry }
  /** `run --sync`: a user already in the core brought to a newer export's state (sync/steps.ts). */
  | SyncStep;

export type StepKind = Step['kind'];
