// Turns one canonical record into the ordered steps that import it (rules in docs/migration.md).
// Invariant: the same record and options always give the same steps in the same order (the step keys a journal resumes
// by).
import { detectAlgorithm } from '../../hashes/formats.js';
import type { CanonicalUser, PasswordAlgorithm } from '../../records/types.js';
import { toBase32Secret } from '../../records/secrets.js';
import type { Step, StepRef } from './steps.js';
import type { UnusableHashPolicy } from '../../records/legacy-rules.js';
import { unusableBcryptHash, type SignInSigner } from '../../signin/run-entry.js';
import type { LegacyEntry } from 'auth-migrate-signin/protocol';
import type { JournalledSteps } from '../journal/journal.js';

export interface PlanOptions {
  /** hashingAlgorithm sent for the external scrypt variant: `external_scrypt` (default) or e.g. `firebase_scrypt`. */
  scryptAlgorithmName?: string;
  /** Map the source id as the external id when the record has no externalUserId. */
  keepSourceIds?: boolean;
  /** Replace the password hash of users that already exist (default: found first and left unchanged). */
  updateExisting?: boolean;
  /**
   * Users disabled or blocked in the source: `skip` (the default: reported, never migrated), `import`, or
   * `{ role }`: imported and given that role, so the app can refuse them.
   */
  disabled?: DisabledPolicy;
  /**
   * `migrate-at-sign-in`: a user whose hash the core cannot take gets an email-password login with an unusable
   * password and a legacy entry for the app's sign-in part (auth-migrate-signin, docs/migration.md §6a).
   */
  unusableHashes?: UnusableHashPolicy;
  /**
   * Under `migrate-at-sign-in`: signs the entries and hashes the placeholder passwords with the run's secret
   * (src/signin/run-entry.ts). A run that writes always has one; a dry run without a target may not.
   */
  signer?: SignInSigner;
}

export type DisabledPolicy = 'skip' | 'import' | { role: string };

/** Why a valid record is left out by the run's settings, as the report's status and a sentence; or undefined. */
export function leftOut(record: CanonicalUser, options: PlanOptions): { status: string; message: string } | undefined {
  if (record.disabled && (options.disabled ?? 'skip') === 'skip') {
    return {
      status: 'DISABLED',
      message:
        'disabled or blocked in the source: not migrated, so it cannot sign in (--disabled import or --disabled role:NAME migrates such users)',
    };
  }
  if (record.legacyPassword && !record.password && !record.thirdParty?.length && !record.phoneNumber && !atSignIn(record, options)) {
    return {
      status: 'SIGN_IN_MIGRATION',
      message:
        'its only sign-in method is a password hash the core cannot take: nothing is created now; the sign-in migration file lists it for migration at first sign-in',
    };
  }
  return undefined;
}

/** Whether the record's legacy hash goes to migration at first sign-in (the policy, and an email to sign in with). */
const atSignIn = (record: CanonicalUser, options: PlanOptions): boolean =>
  options.unusableHashes === 'migrate-at-sign-in' && !!record.legacyPassword && !record.password && record.email !== undefined;

/**
 * Whether a user the journal holds finished must be gone through again because this run's settings add to it:
 * `--update-existing` (its hash not replaced yet by this journal) or `--disabled role:NAME` for a user disabled
 * since (the role is made sure of). Its steps then run again, each finding what is already there.
 */
export function redoesFinished(record: CanonicalUser, options: PlanOptions, steps: JournalledSteps): boolean {
  if (options.updateExisting && record.password && steps.get('password-replace') === undefined) return true;
  return record.disabled === true && typeof options.disabled === 'object';
}

/**
 * The record as the plan sees it: a disabled user imported under `--disabled role:NAME` also gets that role; a
 * user migrated at first sign-in gets an email-password login whose password is the placeholder (src/signin/run-entry.ts).
 */
export function effectiveRecord(record: CanonicalUser, options: PlanOptions): CanonicalUser {
  const policy = options.disabled;
  let out = record;
  if (record.disabled && typeof policy === 'object') out = { ...out, roles: [...(record.roles ?? []), policy.role] };
  if (atSignIn(record, options))
    out = { ...out, password: { hash: options.signer?.placeholderHash(record.id) ?? unusableBcryptHash(), algorithm: 'bcrypt' } };
  return out;
}

/**
 * The legacy entry a user migrated at first sign-in gets in its metadata, or undefined. Without a signer (a dry run
 * without a target) its MAC is empty: an entry the sign-in part would ignore.
 */
export function signInEntry(record: CanonicalUser, options: PlanOptions, since = Date.now()): LegacyEntry | undefined {
  if (!atSignIn(record, options)) return undefined;
  const role = typeof options.disabled === 'object' ? options.disabled.role : undefined;
  if (options.signer) return options.signer.entry(record, role, since);
  const legacy = record.legacyPassword!;
  return {
    v: 2,
    sourceId: record.id,
    email: record.email!,
    since,
    ...legacy,
    ...(record.disabled && role !== undefined ? { disabledRole: role } : {}),
    mac: '',
  };
}

/** A record the planner cannot turn into steps (the validator should have caught it). */
export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

export const DEFAULT_TOTP_PERIOD = 30;
export const DEFAULT_TOTP_SKEW = 1;

function hashingAlgorithmName(algorithm: PasswordAlgorithm, options: PlanOptions): string {
  return algorithm === 'external_scrypt' ? (options.scryptAlgorithmName ?? 'external_scrypt') : algorithm;
}

/** A record's password as every path imports it: under its email, in a known format; else a PlanError. */
export function importablePassword(
  record: CanonicalUser,
  password: NonNullable<CanonicalUser['password']>,
): { email: string; algorithm: PasswordAlgorithm } {
  if (!record.email) throw new PlanError('a password needs an email to be imported');
  const algorithm = password.algorithm ?? detectAlgorithm(password.hash);
  if (!algorithm) throw new PlanError('the password hash format is not recognised (bcrypt, argon2 or external scrypt)');
  return { email: record.email, algorithm };
}

function firstFactorSteps(record: CanonicalUser, options: PlanOptions): Step[] {
  const steps: Step[] = [];
  if (record.password) {
    const { email, algorithm } = importablePassword(record, record.password);
    steps.push({
      kind: 'import-password',
      key: 'password',
      email,
      passwordHash: record.password.hash,
      hashingAlgorithm: hashingAlgorithmName(algorithm, options),
    });
  }
  for (const tp of record.thirdParty ?? []) {
    const email = tp.email ?? record.email;
    if (!email) throw new PlanError(`the ${tp.providerId} login has no email (the core requires one)`);
    const isVerified = tp.emailVerified ?? (tp.email === undefined || tp.email === record.email ? (record.emailVerified ?? false) : false);
    steps.push({
      kind: 'thirdparty-signinup',
      key: `thirdparty:${tp.providerId}:${tp.userId}`,
      thirdPartyId: tp.providerId,
      thirdPartyUserId: tp.userId,
      email,
      isVerified,
    });
  }
  if (record.phoneNumber) steps.push({ kind: 'passwordless-signinup', key: 'phone', phoneNumber: record.phoneNumber });
  return steps;
}

/**
 * Names for devices the source left unnamed, in the core's own style (`TOTP Device N`), fixed up front: left
 * out, the core would number a repeated import anew and a rerun would add a second device.
 */
export function deviceNames(record: CanonicalUser): string[] {
  const taken = new Set((record.totp ?? []).map((d) => d.deviceName).filter((n): n is string => !!n));
  let next = 0;
  return (record.totp ?? []).map((d) => {
    if (d.deviceName) return d.deviceName;
    while (taken.has(`TOTP Device ${next}`)) next += 1;
    const name = `TOTP Device ${next}`;
    taken.add(name);
    return name;
  });
}

const sameEmail = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Email-password import leaves the email unverified, and so does adding an email to a passwordless user; when
 * the source says the record's email is verified, mark it (third-party sign-in-up and passwordless consume
 * already do so themselves). Runs after the mapping, so it uses the id every later step uses.
 */
function verifyEmailSteps(record: CanonicalUser, step: Step): Step[] {
  if (record.emailVerified !== true || record.email === undefined) return [];
  const target =
    step.kind === 'import-password'
      ? { user: step.key, email: step.email, recipeId: 'emailpassword' as const }
      : step.kind === 'passwordless-add-contact' && step.email !== undefined
        ? { user: step.user, email: step.email, recipeId: 'passwordless' as const }
        : undefined;
  if (!target || !sameEmail(target.email, record.email)) return [];
  return [{ kind: 'verify-email', key: `verify-email:${target.user}`, ...target }];
}

export function planUserSteps(source: CanonicalUser, options: PlanOptions = {}): Step[] {
  const record = effectiveRecord(source, options);
  const first = firstFactorSteps(record, options);
  if (first.length === 0) throw new PlanError('the record has no first factor (password, third-party login or phone sign-in)');
  const primaryRef: StepRef = first[0]!.key;
  const externalUserId = record.externalUserId ?? (options.keepSourceIds ? record.id : undefined);
  // Looked up by its external id too: a user whose email changed in the core since is the same user.
  if (externalUserId !== undefined) first[0] = { ...first[0]!, externalUserId } as Step;
  const steps: Step[] = [first[0]!];
  const password = first.find((s) => s.kind === 'import-password');
  if (options.updateExisting && password?.kind === 'import-password') {
    const { email, passwordHash, hashingAlgorithm } = password;
    steps.push({ kind: 'replace-password', key: 'password-replace', user: password.key, email, passwordHash, hashingAlgorithm });
  }

  if (externalUserId !== undefined) steps.push({ kind: 'map-user-id', key: 'map', user: primaryRef, externalUserId });
  steps.push(...verifyEmailSteps(record, first[0]!));
  for (const s of first.slice(1)) steps.push(s, ...verifyEmailSteps(record, s));

  // Recipe users that must end up linked to the first one.
  const toLink: StepRef[] = first.slice(1).map((s) => s.key);
  const otp = record.otpFactors;
  if (otp && (otp.email || otp.phoneNumber)) {
    const phoneUser = first.find((s) => s.key === 'phone');
    if (phoneUser && otp.phoneNumber === record.phoneNumber) {
      // The SMS factor is the phone sign-in's own passwordless user: give it the email too.
      if (otp.email) {
        const add: Step = { kind: 'passwordless-add-contact', key: 'otp-contact', user: 'phone', email: otp.email };
        steps.push(add, ...verifyEmailSteps(record, add));
      }
    } else {
      steps.push(
        otp.email
          ? { kind: 'passwordless-signinup', key: 'otp', email: otp.email }
          : { kind: 'passwordless-signinup', key: 'otp', phoneNumber: otp.phoneNumber! },
      );
      if (otp.email && otp.phoneNumber) {
        steps.push({ kind: 'passwordless-add-contact', key: 'otp-contact', user: 'otp', phoneNumber: otp.phoneNumber });
      }
      toLink.push('otp');
    }
  }
  if (toLink.length > 0) {
    steps.push({ kind: 'create-primary', key: 'primary', user: primaryRef });
    for (const ref of toLink) steps.push({ kind: 'link-accounts', key: `link:${ref}`, user: ref, primary: primaryRef });
  }

  // Profile data: metadata keys, then roles (each created once per run, then given to the user).
  if (record.metadata && Object.keys(record.metadata).length > 0) {
    steps.push({ kind: 'update-metadata', key: 'metadata', user: primaryRef, metadata: record.metadata });
  }
  for (const { role, tenantId } of roleAssignments(record)) {
    if (!steps.some((s) => s.kind === 'create-role' && s.role === role)) steps.push({ kind: 'create-role', key: `role:${role}`, role });
    steps.push({
      kind: 'assign-role',
      key: `user-role:${tenantId ?? ''}:${role}`,
      user: primaryRef,
      role,
      ...(tenantId ? { tenantId } : {}),
    });
  }

  // Migration at first sign-in: the legacy hash waits in the user's metadata, stored only when this run created
  // the password login (a user already there keeps its own password).
  const entry = signInEntry(source, options);
  if (entry && first[0]!.kind === 'import-password') {
    steps.push({ kind: 'legacy-entry', key: 'legacy-entry', user: primaryRef, login: first[0]!.key, entry });
  }

  const names = deviceNames(record);
  (record.totp ?? []).forEach((device, i) => {
    let secretKey: string;
    try {
      secretKey = toBase32Secret(device.secret, device.encoding ?? 'base32');
    } catch (err) {
      throw new PlanError(`totp[${i}]: ${(err as Error).message}`);
    }
    steps.push({
      kind: 'import-totp',
      key: `totp:${names[i]}`,
      user: primaryRef,
      deviceName: names[i]!,
      namedInSource: !!device.deviceName,
      secretKey,
      period: device.period ?? DEFAULT_TOTP_PERIOD,
      skew: device.skew ?? DEFAULT_TOTP_SKEW,
    });
  });
  return steps;
}

/** Each (role, tenant) a record asks for; a bare name is on the run's tenant. */
export function roleAssignments(record: CanonicalUser): Array<{ role: string; tenantId?: string }> {
  const out: Array<{ role: string; tenantId?: string }> = [];
  for (const r of record.roles ?? []) {
    if (typeof r === 'string') out.push({ role: r });
    else if (!r.tenantIds || r.tenantIds.length === 0) out.push({ role: r.role });
    else for (const t of r.tenantIds) out.push({ role: r.role, tenantId: t });
  }
  const seen = new Set<string>();
  return out.filter((a) => {
    const k = `${a.tenantId ?? ''}\u0000${a.role}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
