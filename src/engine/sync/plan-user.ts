// The steps that bring one user already in the core to a newer export's state, for the parts its fingerprint says
// changed (fingerprint.ts), from what the core holds now (a CoreView, read just before) and what the migration made
// of it (the chain's history): only what changed between the earlier export and the newer one (the previous
// export's record, where it is there) and differs in the core is written, and only what the migration created is
// removed. What the user or the app changed in the core since, and the exports agree on, is left (a note says so).
// Invariant: only what the migration created is removed; what the user changed since, and the exports agree on, is
// left.
import type { CoreUser, LoginMethod, TotpDevice } from '../../core-client/types.js';
import type { CanonicalUser } from '../../records/types.js';
import { toBase32Secret } from '../../records/secrets.js';
import { newUserIds, type UserIds } from '../strategies/steps/ids.js';
import { DEFAULT_TOTP_PERIOD, DEFAULT_TOTP_SKEW, deviceNames, effectiveRecord, roleAssignments, type PlanOptions } from '../plan/plan.js';
import type { Step } from '../plan/steps.js';
import type { UserHistory } from './chain.js';
import type { Part } from './fingerprint.js';
import { planEmailAndPassword } from './plan-email.js';

/** What the core holds of the user now (read by the strategy for the parts that changed). */
export interface CoreView {
  user: CoreUser;
  devices?: TotpDevice[];
  /** Roles per tenant ('' = the run's tenant). */
  roles?: Map<string, string[]>;
  metadata?: Record<string, unknown>;
}

export interface ChangedUser {
  record: CanonicalUser;
  parts: readonly Part[];
  history: UserHistory;
  /** The previous export's record of the user, when that file is still there and its fingerprint matches. */
  old?: CanonicalUser;
}

export interface SyncUserPlan {
  steps: Step[];
  ids: UserIds;
  /** What the sync leaves as it is, and why (a device added in the core since, a login it did not create...). */
  notes: string[];
  /** Changes it cannot make: the user is reported failed (and tried again by the next sync). */
  problems: Array<{ status: string; message: string }>;
}

const norm = (s: string): string => s.trim().toLowerCase();

/** The plan's key for a login method (its step key in the journal). */
export function refOf(lm: LoginMethod, history: UserHistory, record: CanonicalUser): string {
  if (lm.recipeId === 'emailpassword') return 'password';
  if (lm.recipeId === 'thirdparty' && lm.thirdParty) return `thirdparty:${lm.thirdParty.id}:${lm.thirdParty.userId}`;
  if (lm.recipeUserId === 'phone' || lm.recipeUserId === 'otp') return lm.recipeUserId; // expected.ts's view (a dry run)
  const external = history.get('map')?.ids.externalUserId;
  for (const ref of ['phone', 'otp']) {
    const id = history.get(ref)?.ids.recipeUserId;
    if (id !== undefined && (lm.recipeUserId === id || (lm.recipeUserId === external && history.get(ref) === firstFactor(history))))
      return ref;
  }
  return lm.phoneNumber !== undefined && lm.phoneNumber === record.phoneNumber ? 'phone' : 'otp';
}

function firstFactor(history: UserHistory) {
  for (const [key, step] of history)
    if (key === 'password' || key === 'phone' || key === 'otp' || key.startsWith('thirdparty:')) return step;
  return undefined;
}

const bulkCreated = (h: UserHistory): boolean => h.get('bulk')?.result === 'created' || h.get('bulk-staged')?.result === 'created';

/** One user's planning: the inputs, what is planned so far, and the helpers each part's planner shares. */
interface UserPlanning {
  record: CanonicalUser;
  old: CanonicalUser | undefined;
  history: UserHistory;
  view: CoreView;
  plan: PlanOptions;
  parts: Set<Part>;
  logins: Map<string, LoginMethod>;
  out: SyncUserPlan;
}

export function planUserChanges(u: ChangedUser, view: CoreView, plan: PlanOptions): SyncUserPlan {
  const { record, history, old } = u;
  const parts = new Set(u.parts);
  const out: SyncUserPlan = { steps: [], ids: newUserIds(), notes: [], problems: [] };
  const ids = out.ids;
  ids.recipe.set('user', view.user.id);
  const logins = new Map<string, LoginMethod>();
  for (const lm of view.user.loginMethods) {
    const ref = refOf(lm, history, record);
    logins.set(ref, lm);
    ids.recipe.set(ref, lm.recipeUserId);
  }
  const p: UserPlanning = { record, old, history, view, plan, parts, logins, out };

  if (parts.has('externalId')) {
    problem(p, 'EXTERNAL_ID_CHANGED', 'the external id changed in the export: a sync does not move a user to another id (map it by hand)');
  }

  // Email, password and the verified flags (plan-email.ts): only what the export changed, never over the user's own.
  const email = planEmailAndPassword(record, old, parts, logins, plan);
  out.steps.push(...email.steps);
  out.notes.push(...email.notes);
  out.problems.push(...email.problems);

  if (parts.has('phone')) planPhone(p);
  if (parts.has('thirdParty') || parts.has('email') || parts.has('verified')) planThirdParty(p);
  if (parts.has('otp')) planOtp(p);
  if (parts.has('totp') && view.devices) planDevices(p, view.devices);
  if (parts.has('metadata') && view.metadata) planMetadata(p, view.metadata, u.parts.includes('metadata'));
  if ((parts.has('roles') || parts.has('disabled')) && view.roles) planRoles(p, view.roles);
  return out;
}

/** The migration made it: its step says created, or the bulk import created the user with it (previous export). */
const made = (p: UserPlanning, ref: string, inOld: boolean): boolean =>
  p.history.get(ref)?.result === 'created' || (bulkCreated(p.history) && inOld);
const step = (p: UserPlanning, s: Step): void => void p.out.steps.push(s);
const problem = (p: UserPlanning, status: string, message: string): void => void p.out.problems.push({ status, message });

/** A login added to the user is linked to it: the user is made primary first (once). */
function primary(p: UserPlanning): void {
  if (!p.view.user.isPrimaryUser && !p.out.steps.some((s) => s.kind === 'create-primary'))
    step(p, { kind: 'create-primary', key: 'primary', user: 'user' });
}

function removeLogin(p: UserPlanning, ref: string, lm: LoginMethod, inOld: boolean): void {
  const { out, view } = p;
  if (!made(p, ref, inOld)) return void out.notes.push(`the ${ref} login ${lm.recipeUserId} was not created by the migration: left`);
  if (lm.recipeUserId === view.user.id || view.user.loginMethods.length === 1) {
    return void out.notes.push(`the ${ref} login ${lm.recipeUserId} is the user's own (primary) login: left (remove the user instead)`);
  }
  step(p, { kind: 'remove-login', key: `sync:remove-login:${ref}`, recipeUserId: lm.recipeUserId, description: ref });
}

function planPhone(p: UserPlanning): void {
  const { record, old, out } = p;
  const phone = p.logins.get('phone');
  if (record.phoneNumber && phone && phone.phoneNumber !== record.phoneNumber) {
    // The core's phone is the earlier export's (or unknown): moved; another one is the user's own change: left.
    if (old?.phoneNumber && phone.phoneNumber !== old.phoneNumber)
      return void out.notes.push(`the phone number of login ${phone.recipeUserId} was changed in the core since the earlier run: left`);
    step(p, { kind: 'passwordless-add-contact', key: 'sync:phone:phone', user: 'phone', phoneNumber: record.phoneNumber });
  } else if (record.phoneNumber && !phone) {
    problem(p, 'LOGIN_ADDED', 'the export gives the user phone sign-in it did not have: a sync does not add a first login method');
  } else if (!record.phoneNumber && phone) {
    removeLogin(p, 'phone', phone, !!old?.phoneNumber);
  }
}

function planThirdParty(p: UserPlanning): void {
  const { record, old, logins, parts } = p;
  const wanted = new Map((record.thirdParty ?? []).map((t) => [`thirdparty:${t.providerId}:${t.userId}`, t]));
  const olds = new Map((old?.thirdParty ?? []).map((t) => [`thirdparty:${t.providerId}:${t.userId}`, t]));
  const oldLogins = new Set(olds.keys());
  for (const [ref, lm] of logins) {
    if (!ref.startsWith('thirdparty:') || wanted.has(ref)) continue;
    if (parts.has('thirdParty')) removeLogin(p, ref, lm, oldLogins.has(ref));
  }
  for (const [ref, t] of wanted) {
    const { email, isVerified } = loginEmail(t, record);
    if (email === undefined) continue;
    const lm = logins.get(ref);
    const was = olds.get(ref);
    if (lm && old && was) {
      // The export's email and flag for this login are the earlier export's: nothing changed for it (the
      // provider, or the user, may have changed it in the core since: left).
      const before = loginEmail(was, old);
      if (before.email === email && before.isVerified === isVerified) continue;
    }
    if (!lm) {
      step(p, { kind: 'thirdparty-signinup', key: ref, thirdPartyId: t.providerId, thirdPartyUserId: t.userId, email, isVerified });
      primary(p);
      step(p, { kind: 'link-accounts', key: `link:${ref}`, user: ref, primary: 'user' });
    } else if (lm.email !== norm(email) || (isVerified && !lm.verified)) {
      step(p, {
        kind: 'update-thirdparty',
        key: `sync:login:${ref}`,
        recipeUserId: lm.recipeUserId,
        thirdPartyId: t.providerId,
        thirdPartyUserId: t.userId,
        email,
        isVerified,
      });
    } else if (!isVerified && lm.verified && lm.email !== undefined) {
      step(p, { kind: 'unverify-email', key: `sync:unverify:${ref}`, user: ref, email: lm.email });
    }
  }
}

function planOtp(p: UserPlanning): void {
  const { record, old } = p;
  const want = record.otpFactors;
  const otp = p.logins.get('otp');
  if (otp && (want?.email || want?.phoneNumber)) {
    const was = old?.otpFactors;
    if (want.email && otp.email !== norm(want.email) && !(old && was?.email === want.email))
      step(p, { kind: 'passwordless-add-contact', key: 'sync:otp-email', user: 'otp', email: want.email });
    if (want.phoneNumber && otp.phoneNumber !== want.phoneNumber && !(old && was?.phoneNumber === want.phoneNumber)) {
      step(p, { kind: 'passwordless-add-contact', key: 'sync:otp-phone', user: 'otp', phoneNumber: want.phoneNumber });
    }
  } else if (otp) {
    removeLogin(p, 'otp', otp, !!(old?.otpFactors?.email || old?.otpFactors?.phoneNumber));
  } else if (want?.email || want?.phoneNumber) {
    step(
      p,
      want.email
        ? { kind: 'passwordless-signinup', key: 'otp', email: want.email }
        : { kind: 'passwordless-signinup', key: 'otp', phoneNumber: want.phoneNumber! },
    );
    if (want.email && want.phoneNumber)
      step(p, { kind: 'passwordless-add-contact', key: 'otp-contact', user: 'otp', phoneNumber: want.phoneNumber });
    primary(p);
    step(p, { kind: 'link-accounts', key: 'link:otp', user: 'otp', primary: 'user' });
  }
}

function planDevices(p: UserPlanning, devices: TotpDevice[]): void {
  const { record, old, history, out } = p;
  const names = deviceNames(record);
  const want = new Map((record.totp ?? []).map((d, i) => [names[i]!, d]));
  const oldNames = old ? deviceNames(old) : [];
  const oldSecrets = new Map((old?.totp ?? []).map((d, i) => [oldNames[i]!, secretOf(d)]));
  const bulkDevices = new Set(jsonList(history.get('bulk')?.ids.devices ?? history.get('bulk-staged')?.ids.devices));
  const ours = (name: string): boolean => made(p, `totp:${name}`, oldSecrets.has(name) || bulkDevices.has(name));
  for (const d of devices) {
    const w = want.get(d.name);
    const replace =
      w !== undefined &&
      ((w.period ?? DEFAULT_TOTP_PERIOD) !== d.period ||
        (w.skew ?? DEFAULT_TOTP_SKEW) !== d.skew ||
        // The secret cannot be read back: the previous export says whether this device's changed; without it, a
        // device of the same name and settings under a changed TOTP part may be the changed one: imported again.
        (old ? oldSecrets.get(d.name) !== secretOf(w) : true));
    if (w !== undefined && !replace) continue;
    if (!ours(d.name)) {
      out.notes.push(`TOTP device "${d.name}" was not created by the migration: left`);
      if (w !== undefined) want.delete(d.name);
      continue;
    }
    step(p, { kind: 'remove-totp-device', key: `sync:remove-totp:${d.name}`, user: 'user', deviceName: d.name });
  }
  const present = new Set(devices.map((d) => d.name));
  for (const [name, d] of want) {
    const replaced = out.steps.some((s) => s.kind === 'remove-totp-device' && s.deviceName === name);
    if (present.has(name) && !replaced) continue;
    if (!present.has(name) && oldSecrets.get(name) === secretOf(d) && !replaced) {
      out.notes.push(`TOTP device "${name}" was removed in the core since the earlier run: left`);
      continue;
    }
    step(p, {
      kind: 'import-totp',
      key: `totp:${name}`,
      user: 'user',
      deviceName: name,
      namedInSource: !!d.deviceName,
      secretKey: secretOf(d),
      period: d.period ?? DEFAULT_TOTP_PERIOD,
      skew: d.skew ?? DEFAULT_TOTP_SKEW,
    });
  }
}

function planMetadata(p: UserPlanning, metadata: Record<string, unknown>, metadataChanged: boolean): void {
  const { record, old, out } = p;
  const want = record.metadata ?? {};
  const set = Object.fromEntries(
    Object.entries(want).filter(
      ([k, v]) =>
        v !== null &&
        JSON.stringify(metadata[k]) !== JSON.stringify(v) &&
        (!old || JSON.stringify(old.metadata?.[k]) !== JSON.stringify(v)),
    ),
  );
  const remove = Object.keys(old?.metadata ?? {}).filter((k) => !(k in want) && k in metadata);
  if (!old && metadataChanged) {
    const extra = Object.keys(metadata).filter((k) => !(k in want));
    if (extra.length > 0)
      out.notes.push(
        `metadata keys ${extra.join(', ')} are not in the export: left (the previous export, which would say whether the migration wrote them, is not available)`,
      );
  }
  if (Object.keys(set).length + remove.length > 0) step(p, { kind: 'set-metadata', key: 'sync:metadata', user: 'user', set, remove });
}

function planRoles(p: UserPlanning, roles: Map<string, string[]>): void {
  const { record, old, plan, out } = p;
  const want = roleAssignments(effectiveRecord(record, plan));
  const oldWant = old
    ? new Set(roleAssignments(effectiveRecord(old, plan)).map((a) => `${a.tenantId ?? ''}:${a.role}`))
    : new Set<string>();
  const wanted = new Set(want.map((a) => `${a.tenantId ?? ''}:${a.role}`));
  for (const [tenant, held] of roles) {
    for (const role of held) {
      const k = `${tenant}:${role}`;
      if (wanted.has(k)) continue;
      if (!made(p, `user-role:${k}`, oldWant.has(k))) continue; // a role the migration did not give: not ours to take
      step(p, { kind: 'remove-role', key: `sync:remove-role:${k}`, user: 'user', role, ...(tenant ? { tenantId: tenant } : {}) });
    }
  }
  for (const a of want) {
    if (roles.get(a.tenantId ?? '')?.includes(a.role)) continue;
    if (old && oldWant.has(`${a.tenantId ?? ''}:${a.role}`)) {
      out.notes.push(`the role ${a.role} was taken from the user in the core since the earlier run: left`);
      continue;
    }
    step(p, { kind: 'create-role', key: `role:${a.role}`, role: a.role });
    step(p, {
      kind: 'assign-role',
      key: `user-role:${a.tenantId ?? ''}:${a.role}`,
      user: 'user',
      role: a.role,
      ...(a.tenantId ? { tenantId: a.tenantId } : {}),
    });
  }
}

/** A third-party login's email and verified flag as the record gives them (its own, else the user's). */
function loginEmail(t: NonNullable<CanonicalUser['thirdParty']>[number], record: CanonicalUser) {
  const email = t.email ?? record.email;
  const isVerified = t.emailVerified ?? (t.email === undefined || t.email === record.email ? (record.emailVerified ?? false) : false);
  return { email, isVerified };
}

function secretOf(d: NonNullable<CanonicalUser['totp']>[number]): string {
  return toBase32Secret(d.secret, d.encoding ?? 'base32');
}

function jsonList(v: string | undefined): string[] {
  try {
    const list = JSON.parse(v ?? '[]') as unknown;
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Tenants whose roles the view must hold for this record ('' = the run's). */
export function roleTenants(record: CanonicalUser, old: CanonicalUser | undefined, plan: PlanOptions): string[] {
  const tenants = new Set<string>(['']);
  for (const r of [record, old]) if (r) for (const a of roleAssignments(effectiveRecord(r, plan))) tenants.add(a.tenantId ?? '');
  return [...tenants];
}
