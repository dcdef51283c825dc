// Verification of a migration: each user exists in the core with the planned login methods, primary and
// linked as planned, with the planned TOTP devices; optionally TOTP codes and known passwords are tried.
// Invariant: a user counts as ok only when everything planned for it is found in the core.
import { checkLegacyPassword, readLegacyEntry, type LegacyEntry } from 'auth-migrate-signin/protocol';
import type { CoreClient, CoreUser } from '../core-client/types.js';
import { formatProblem } from '../records/types.js';
import type { JournalledUser, JournalUsersView } from './journal/journal.js';
import { leftOut, planUserSteps, PlanError, type PlanOptions } from './plan/plan.js';
import type { ValidatedRecord } from './runner.js';
import type { Step } from './plan/steps.js';
import { candidateCodes } from '../shared/totp-code.js';
import type { TotpCheckLog } from './plan/totp-checks.js';
import { createAccountLookup, hasMethod, methodOf, norm, type AccountLookup } from './strategies/steps/lookup.js';

export { createAccountLookup, type AccountLookup };

export type VerifyVerdict = 'ok' | 'missing' | 'mismatch' | 'skipped';

export interface UserVerification {
  id: string;
  outcome: VerifyVerdict;
  /** The core's user id when found. */
  userId?: string;
  /** What differs from the plan, one phrase each (no secrets); for a user the run leaves out, why. */
  differences: string[];
  /** Migrated at first sign-in and not signed in yet: the algorithm of its legacy entry. */
  waiting?: string;
  /** A user the run leaves out (skipped): the email it has in the source, so the lines name it. */
  email?: string;
}

export interface VerifyUserOptions {
  plan?: PlanOptions;
  /** Journal of the run, to find users by the recipe user id it recorded. */
  journal?: JournalUsersView;
  /** Verify every TOTP device with a code computed from the source secret (sandbox: it spends codes). */
  checkTotpCodes?: boolean;
  /** The codes earlier checks spent: never offered again (a replay would be refused and count as a failure). */
  totpLog?: TotpCheckLog;
  /** Shared across users so the fallback index is built once (see createAccountLookup). */
  lookup?: AccountLookup;
  /** Also list the devices of users that should have none (one more call per such user). */
  checkExtraDevices?: boolean;
}

function methodName(step: Step): string {
  switch (step.kind) {
    case 'import-password':
      return `email-password login ${step.email}`;
    case 'thirdparty-signinup':
      return `${step.thirdPartyId} login ${step.thirdPartyUserId}`;
    case 'passwordless-signinup':
      return `passwordless login ${step.email ?? step.phoneNumber}`;
    default:
      return step.key;
  }
}

/** Whether this user was imported by a run that keeps join dates (`--via bulk|bulk-staged`, by its journal). */
function joinedKept(journalled: JournalledUser | undefined): boolean {
  return (
    journalled?.outcome === 'imported' && (journalled.steps.get('bulk') !== undefined || journalled.steps.get('bulk-staged') !== undefined)
  );
}

/** Find the user: by external id, by the id the journal recorded, or by the first factor's account info. */
async function findUser(
  first: Step,
  external: string | undefined,
  journalled: JournalledUser | undefined,
  core: CoreClient,
  lookup: AccountLookup,
): Promise<CoreUser | undefined> {
  if (external !== undefined) {
    const r = await core.getUserById(external);
    return r.status === 'OK' ? r.user : undefined;
  }
  const recorded = journalled?.steps.get(first.key)?.ids.recipeUserId;
  if (recorded !== undefined) {
    const r = await core.getUserById(recorded);
    if (r.status === 'OK') return r.user;
  }
  return lookup(first);
}

export async function verifyUser(input: ValidatedRecord, core: CoreClient, options: VerifyUserOptions = {}): Promise<UserVerification> {
  const id = input.record.id;
  const email = input.record.email !== undefined ? { email: input.record.email } : {};
  if (!input.valid) {
    const first = input.problems.find((p) => p.severity === 'error');
    return { id, outcome: 'skipped', differences: [first ? formatProblem(first) : 'invalid record'], ...email };
  }
  // Left out by the run's settings (a disabled user): not expected in the core, so not checked.
  const out = leftOut(input.record, options.plan ?? {});
  if (out) return { id, outcome: 'skipped', differences: [out.message], ...email };
  let steps: Step[];
  try {
    steps = planUserSteps(input.record, options.plan);
  } catch (err) {
    if (err instanceof PlanError) return { id, outcome: 'skipped', differences: [err.message], ...email };
    throw err;
  }
  const first = steps[0]!;
  const map = steps.find((s) => s.kind === 'map-user-id');
  const external = map?.kind === 'map-user-id' ? map.externalUserId : undefined;
  const journalled = options.journal?.get(id);
  const user = await findUser(first, external, journalled, core, options.lookup ?? createAccountLookup(core));
  if (!user)
    return {
      id,
      outcome: 'missing',
      userId: undefined,
      differences: [`no user with ${external !== undefined ? `id ${external}` : methodName(first)}`],
    };

  const differences = loginDifferences(input, steps, user, journalled);
  differences.push(...verifiedDifferences(input, steps, user));
  const needsPrimary = steps.some((s) => s.kind === 'create-primary');
  if (needsPrimary && !user.isPrimaryUser) differences.push(`${user.id} is not a primary user`);
  if (external !== undefined && user.id !== external) differences.push(`the user's id is ${user.id}, not the external id ${external}`);

  differences.push(...(await deviceDifferences(steps, user, core, options)));
  differences.push(...(await profileDifferences(steps, user.id, core)));
  const waiting = await waitingAlgorithm(steps, user, core);
  return { id, outcome: differences.length > 0 ? 'mismatch' : 'ok', userId: user.id, differences, ...(waiting ? { waiting } : {}) };
}

/** The login methods the plan makes: each on the user (with the source's join time where the run kept it). */
function loginDifferences(input: ValidatedRecord, steps: Step[], user: CoreUser, journalled: JournalledUser | undefined): string[] {
  const differences: string[] = [];
  for (const step of steps) {
    if (step.kind === 'import-password' || step.kind === 'thirdparty-signinup' || step.kind === 'passwordless-signinup') {
      if (!hasMethod(user, step)) differences.push(`${methodName(step)} is not a login method of ${user.id}`);
      else if (joinedKept(journalled) && input.record.timeJoined !== undefined) {
        const joined = methodOf(user, step)!.timeJoined;
        if (joined !== input.record.timeJoined) {
          differences.push(
            `${methodName(step)} joined at ${new Date(joined).toISOString()}, the source says ${new Date(input.record.timeJoined).toISOString()}`,
          );
        }
      }
    }
    if (step.kind === 'passwordless-add-contact') {
      const contact = step.email !== undefined ? { email: norm(step.email) } : { phoneNumber: step.phoneNumber };
      const ok = user.loginMethods.some(
        (m) =>
          m.recipeId === 'passwordless' &&
          (contact.email !== undefined ? m.email === contact.email : m.phoneNumber === contact.phoneNumber) &&
          m.email !== undefined &&
          m.phoneNumber !== undefined,
      );
      if (!ok) differences.push(`no passwordless login method holds both the email and the phone of the one-time-code factors`);
    }
  }
  return differences;
}

/** The TOTP devices: each there, verified, with its period and skew (and a code accepted, when asked); no others. */
async function deviceDifferences(steps: Step[], user: CoreUser, core: CoreClient, options: VerifyUserOptions): Promise<string[]> {
  const differences: string[] = [];
  const devices = steps.filter((s): s is Extract<Step, { kind: 'import-totp' }> => s.kind === 'import-totp');
  const list = devices.length > 0 || options.checkExtraDevices ? (await core.listTotpDevices(user.id)).devices : [];
  // A device the plan does not know (e.g. imported twice under another name) is a difference too.
  for (const extra of list.filter((x) => !devices.some((d) => d.deviceName === x.name))) {
    differences.push(`unexpected TOTP device "${extra.name}"`);
  }
  if (devices.length > 0) {
    const tried = new Set<string>();
    for (const d of devices) {
      const found = list.find((x) => x.name === d.deviceName);
      if (!found) {
        differences.push(`TOTP device "${d.deviceName}" is missing`);
        continue;
      }
      if (!found.verified) differences.push(`TOTP device "${d.deviceName}" is not verified`);
      if (found.period !== d.period || found.skew !== d.skew) {
        differences.push(`TOTP device "${d.deviceName}" has period ${found.period}/skew ${found.skew}, expected ${d.period}/${d.skew}`);
      }
      if (options.checkTotpCodes && !tried.has(d.secretKey)) {
        tried.add(d.secretKey);
        const ok = await tryCode(core, user.id, d, options.totpLog);
        if (ok !== true) differences.push(`TOTP device "${d.deviceName}": ${ok}`);
      }
    }
  }
  return differences;
}

/** The core marks these "fake" emails verified at sign-up (core-api.md §2). */
const isFakeEmail = (email: string): boolean => email.endsWith('@stfakeemail.supertokens.com') || email.endsWith('.fakeemail.com');

/**
 * The verified state the plan leads to: a verify-email step's login method is verified, so is a third-party
 * login sent with isVerified; an email-password login the source explicitly calls unverified is not.
 */
function verifiedDifferences(input: ValidatedRecord, steps: Step[], user: CoreUser): string[] {
  const out: string[] = [];
  const method = (recipeId: string, email: string) => user.loginMethods.find((m) => m.recipeId === recipeId && m.email === norm(email));
  for (const step of steps) {
    if (step.kind === 'verify-email') {
      const m = method(step.recipeId, step.email);
      if (m && !m.verified)
        out.push(`${norm(step.email)} is not verified on the ${step.recipeId} login method (the source says it is verified)`);
    } else if (step.kind === 'import-password' && input.record.emailVerified === false && !isFakeEmail(norm(step.email))) {
      const m = method('emailpassword', step.email);
      if (m?.verified) out.push(`${norm(step.email)} is verified on the emailpassword login method (the source says it is not)`);
    } else if (step.kind === 'thirdparty-signinup' && step.isVerified) {
      const m = user.loginMethods.find(
        (x) => x.recipeId === 'thirdparty' && x.thirdParty?.id === step.thirdPartyId && x.thirdParty.userId === step.thirdPartyUserId,
      );
      if (m && !m.verified)
        out.push(`the ${step.thirdPartyId} login ${step.thirdPartyUserId} has an unverified email (the source says it is verified)`);
    }
  }
  return out;
}

/**
 * One code, of a time step no earlier check spent: a refusal then means the secret differs, and at most one failed
 * attempt per device and run counts towards the user's lockout. Every step spent: not checked (not a mismatch).
 */
async function tryCode(
  core: CoreClient,
  userId: string,
  d: { secretKey: string; period: number; skew: number },
  log: TotpCheckLog | undefined,
): Promise<true | string> {
  const pick = log
    ? log.pick(userId, d.secretKey, d.period, d.skew)
    : { code: candidateCodes(d.secretKey, d.period, d.skew)[0]!, counter: -1 };
  if (!pick) return true; // every code it accepts now was checked moments ago; nothing new to learn
  if (log) await log.spend(userId, d.secretKey, pick.counter, d.period, d.skew);
  const r = await core.verifyTotp(userId, pick.code);
  if (r.status === 'OK') return true;
  return `a code computed from the source secret was refused (${r.status}; one failed attempt counted for this user)`;
}

export interface CredentialCheck {
  email: string;
  ok: boolean;
  /** The core's sign-in status; NOT_IN_SOURCE and NOT_MIGRATED when no sign-in was tried. */
  status: string;
  /** NOT_MIGRATED: why the run leaves this user out (disabled in the source...): never "wrong credentials". */
  reason?: string;
}

/** `email,password` lines (the password may contain commas); blank lines and `#` comments are skipped. */
export function parseCredentials(text: string): Array<{ email: string; password: string; line: number }> {
  const out: Array<{ email: string; password: string; line: number }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) return;
    const comma = raw.indexOf(',');
    if (comma <= 0) throw new Error(`line ${i + 1}: expected "email,password"`);
    out.push({ email: raw.slice(0, comma).trim(), password: raw.slice(comma + 1), line: i + 1 });
  });
  return out;
}

/**
 * The core's sign-in; for a user still waiting for migration at first sign-in, the password against its legacy
 * entry (the check the app's sign-in part makes): OK_AT_FIRST_SIGN_IN when it matches, WRONG_LEGACY_PASSWORD when
 * not, LEGACY_UNCHECKABLE when the entry needs what only the app has (Cognito's pool, Firebase's key).
 */
export async function checkCredential(core: CoreClient, email: string, password: string): Promise<CredentialCheck> {
  const r = await core.signIn(email, password);
  if (r.status !== 'WRONG_CREDENTIALS_ERROR') return { email, ok: r.status === 'OK', status: r.status };
  const entry = await waitingEntryOf(core, email);
  if (!entry) return { email, ok: false, status: r.status };
  const legacy = await checkLegacyPassword(entry, password);
  if (legacy.result === 'match') return { email, ok: true, status: 'OK_AT_FIRST_SIGN_IN' };
  return { email, ok: false, status: legacy.result === 'mismatch' ? 'WRONG_LEGACY_PASSWORD' : 'LEGACY_UNCHECKABLE' };
}

/** The legacy entry of the email-password login of `email`, when one waits. */
async function waitingEntryOf(core: CoreClient, email: string): Promise<LegacyEntry | undefined> {
  for (const u of (await core.listUsersByAccountInfo({ email })).users) {
    const login = u.loginMethods.find((m) => m.recipeId === 'emailpassword' && m.email === norm(email));
    if (!login) continue;
    const shape = readLegacyEntry((await core.getUserMetadata(login.recipeUserId)).metadata);
    if (shape && 'entry' in shape) return shape.entry;
  }
  return undefined;
}

/** For a user the plan migrates at first sign-in: the algorithm of its entry while one waits on its login. */
async function waitingAlgorithm(steps: Step[], user: CoreUser, core: CoreClient): Promise<string | undefined> {
  const step = steps.find((s): s is Extract<Step, { kind: 'legacy-entry' }> => s.kind === 'legacy-entry');
  const password = steps.find((s): s is Extract<Step, { kind: 'import-password' }> => s.kind === 'import-password');
  if (!step || !password) return undefined;
  const login = user.loginMethods.find((m) => m.recipeId === 'emailpassword' && m.email === norm(password.email));
  if (!login) return undefined;
  const shape = readLegacyEntry((await core.getUserMetadata(login.recipeUserId)).metadata);
  return shape && 'entry' in shape ? shape.entry.algorithm.slice(0, 40) : undefined;
}

/** Metadata keys and roles the plan carries, compared with the core (values are never printed: they may be personal). */
async function profileDifferences(steps: Step[], userId: string, core: CoreClient): Promise<string[]> {
  const out: string[] = [];
  const meta = steps.find((s): s is Extract<Step, { kind: 'update-metadata' }> => s.kind === 'update-metadata');
  if (meta) {
    const current = (await core.getUserMetadata(userId)).metadata;
    for (const [k, v] of Object.entries(meta.metadata)) {
      if (v === null) continue;
      if (!(k in current)) out.push(`metadata key "${k}" is missing`);
      else if (JSON.stringify(current[k]) !== JSON.stringify(v))
        out.push(`metadata key "${k}" differs from the source (changed since, or another value)`);
    }
  }
  const byTenant = new Map<string, string[]>();
  for (const s of steps) {
    if (s.kind !== 'assign-role') continue;
    const t = s.tenantId ?? '';
    let roles = byTenant.get(t);
    if (!roles) byTenant.set(t, (roles = (await (t ? core.forTenant(t) : core).getUserRoles(userId)).roles));
    if (!roles.includes(s.role)) out.push(`role "${s.role}" is missing${t ? ` in tenant ${t}` : ''}`);
  }
  return out;
}
