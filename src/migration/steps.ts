// The typed steps a user's migration is made of, and how to describe them without leaking secrets.
import { describeSyncStep, syncCallCount, type SyncStep } from './sync/steps.js';
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

/** How many HTTP calls a step makes when everything goes well (used by the dry run). */
export function callCount(step: Step): number {
  switch (step.kind) {
    case 'import-password':
      return 2; // looked up first
    case 'replace-password':
      return 1;
    case 'thirdparty-signinup':
    case 'verify-email':
    case 'passwordless-add-contact':
      return 2;
    case 'passwordless-signinup':
      return 3;
    case 'update-metadata':
    case 'legacy-entry':
      return 2; // read, then only the missing keys
    case 'replace-password-hash':
      return syncCallCount(step);
    default:
      return 1;
  }
}

/** One line for a person: what the step does, with no password hash, secret or code in it. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'import-password':
      return `import password hash (${step.hashingAlgorithm}) for ${step.email} unless the user exists: GET /users/by-accountinfo, POST /recipe/user/passwordhash/import`;
    case 'replace-password':
      return `replace the password hash of ${step.email} with the source's (${step.hashingAlgorithm}) if the user was already there: POST /recipe/user/passwordhash/import`;
    case 'thirdparty-signinup':
      return `third-party sign-in-up ${step.thirdPartyId}/${step.thirdPartyUserId} (${step.email}) unless the user exists: GET /users/by-accountinfo, POST /recipe/signinup`;
    case 'passwordless-signinup':
      return `passwordless ${step.key === 'phone' ? 'phone sign-in' : 'one-time-code factor'} for ${step.email ?? step.phoneNumber} unless the user exists: GET /users/by-accountinfo, POST /recipe/signinup/code, POST /recipe/signinup/code/consume`;
    case 'passwordless-add-contact':
      return `add ${step.email !== undefined ? `email ${step.email}` : `phone ${step.phoneNumber}`} to the ${step.user} passwordless user unless it has it: GET /user/id, PUT /recipe/user (rid passwordless)`;
    case 'map-user-id':
      return `map the ${step.user} user to external id ${step.externalUserId}: POST /recipe/userid/map`;
    case 'verify-email':
      return `mark ${step.email} verified on the ${step.user} user (verified in the source): POST /recipe/user/email/verify/token, POST /recipe/user/email/verify`;
    case 'create-primary':
      return `make the ${step.user} user primary: POST /recipe/accountlinking/user/primary`;
    case 'link-accounts':
      return `link the ${step.user} user to the ${step.primary} user: POST /recipe/accountlinking/user/link`;
    case 'update-metadata':
      return `add the metadata keys ${Object.keys(step.metadata).join(', ')} the core does not have yet to the ${step.user} user: GET and PUT /recipe/user/metadata`;
    case 'legacy-entry':
      return `keep the ${step.entry.algorithm} legacy hash for migration at first sign-in in the ${step.user} user's metadata (auth-migrate:legacy-password) if this run created its password login: GET and PUT /recipe/user/metadata`;
    case 'create-role':
      return `create the role ${step.role} (once per run): PUT /recipe/role`;
    case 'assign-role':
      return `give the ${step.user} user the role ${step.role}${step.tenantId ? ` in tenant ${step.tenantId}` : ''}: PUT /recipe/user/role`;
    case 'import-totp':
      return `import TOTP device "${step.deviceName}" (period ${step.period}, skew ${step.skew}) under the ${step.user} user: POST /recipe/totp/device/import`;
    default:
      return describeSyncStep(step);
  }
}
