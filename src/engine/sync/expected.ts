// What the core should hold of a changed user, as the earlier run left it, without asking the core: the dry run
// plans against it (plan-user.ts, the same planner as the run), so its prediction is what the run does on a core
// nobody changed since. Parts the fingerprint says are unchanged are the newer record's; changed ones are the
// previous export's record where that file is still there, else the journal's (step keys: logins, devices, roles)
// with a value that differs.
// Invariant: the core is not asked: the prediction is computed from the journals and exports alone.
import type { CoreUser, LoginMethod, TotpDevice } from '../../core-client/types.js';
import type { CanonicalUser } from '../../records/types.js';
import { DEFAULT_TOTP_PERIOD, DEFAULT_TOTP_SKEW, deviceNames, effectiveRecord, roleAssignments, type PlanOptions } from '../plan/plan.js';
import type { CoreView, ChangedUser } from './plan-user.js';

/** A value that differs from any the export can hold (the previous one is not known). */
const OTHER = 'previous-value-not-known\u0000';
const norm = (s: string): string => s.trim().toLowerCase();

/** The record as the earlier run saw it, as far as the fingerprint, the previous export and the journal tell. */
function previousRecord(u: ChangedUser): CanonicalUser {
  const { record, old, history } = u;
  const changed = new Set(u.parts);
  const pick = <K extends keyof CanonicalUser>(part: string, key: K, unknown: CanonicalUser[K]): CanonicalUser[K] =>
    !changed.has(part as never) ? record[key] : old ? old[key] : unknown;
  const fromHistory = (prefix: string): string[] =>
    [...history.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  return {
    id: record.id,
    email: pick('email', 'email', record.email === undefined ? undefined : OTHER),
    emailVerified: pick('verified', 'emailVerified', !record.emailVerified),
    password: pick('password', 'password', record.password ?? (history.has('password') ? { hash: OTHER } : undefined)),
    phoneNumber: pick(
      'phone',
      'phoneNumber',
      history.has('phone') ? (record.phoneNumber === undefined ? OTHER : `${record.phoneNumber}${OTHER}`) : undefined,
    ),
    thirdParty: pick(
      'thirdParty',
      'thirdParty',
      fromHistory('thirdparty:').map((k) => {
        const [providerId, ...rest] = k.split(':');
        return { providerId: providerId!, userId: rest.join(':'), email: OTHER };
      }),
    ),
    totp: pick(
      'totp',
      'totp',
      fromHistory('totp:').map((name) => ({ secret: 'AAAAAAAAAAAAAAAA', deviceName: name })),
    ),
    otpFactors: pick('otp', 'otpFactors', history.has('otp') ? { email: OTHER } : undefined),
    metadata: pick('metadata', 'metadata', {}),
    roles: pick(
      'roles',
      'roles',
      fromHistory('user-role:').map((k) => {
        const [tenant, ...role] = k.split(':');
        return tenant ? { role: role.join(':'), tenantIds: [tenant] } : role.join(':');
      }),
    ),
    disabled: pick('disabled', 'disabled', !record.disabled),
    externalUserId: record.externalUserId,
  };
}

/** The core user and data the earlier run left for this user, with the plan's step keys as ids. */
export function expectedView(u: ChangedUser, plan: PlanOptions): CoreView {
  const was = previousRecord(u);
  const logins: LoginMethod[] = [];
  const lm = (recipeUserId: string, recipeId: LoginMethod['recipeId'], extra: Partial<LoginMethod>): LoginMethod => ({
    tenantIds: ['public'],
    recipeUserId,
    verified: false,
    timeJoined: 0,
    recipeId,
    ...extra,
  });
  if (was.password && was.email !== undefined)
    logins.push(lm('password', 'emailpassword', { email: norm(was.email), verified: was.emailVerified === true }));
  for (const t of was.thirdParty ?? []) {
    const email = t.email ?? was.email ?? '';
    const verified = t.emailVerified ?? (t.email === undefined || t.email === was.email ? (was.emailVerified ?? false) : false);
    logins.push(
      lm(`thirdparty:${t.providerId}:${t.userId}`, 'thirdparty', {
        email: norm(email),
        verified,
        thirdParty: { id: t.providerId, userId: t.userId },
      }),
    );
  }
  if (was.phoneNumber) logins.push(lm('phone', 'passwordless', { phoneNumber: was.phoneNumber, verified: true }));
  const otp = was.otpFactors;
  if (otp && (otp.email || otp.phoneNumber)) {
    logins.push(
      lm('otp', 'passwordless', {
        ...(otp.email ? { email: norm(otp.email) } : {}),
        ...(otp.phoneNumber ? { phoneNumber: otp.phoneNumber } : {}),
        verified: otp.email === undefined || (was.emailVerified === true && otp.email === was.email),
      }),
    );
  }
  const user: CoreUser = {
    id: logins[0]?.recipeUserId ?? 'user',
    isPrimaryUser: logins.length > 1,
    tenantIds: ['public'],
    timeJoined: 0,
    emails: [],
    phoneNumbers: [],
    thirdParty: [],
    loginMethods: logins,
  };
  const names = deviceNames(was);
  const devices: TotpDevice[] = (was.totp ?? []).map((d, i) => ({
    name: names[i]!,
    period: d.period ?? DEFAULT_TOTP_PERIOD,
    skew: d.skew ?? DEFAULT_TOTP_SKEW,
    verified: true,
  }));
  const roles = new Map<string, string[]>([['', []]]);
  for (const a of roleAssignments(effectiveRecord(was, plan))) {
    const list = roles.get(a.tenantId ?? '') ?? [];
    list.push(a.role);
    roles.set(a.tenantId ?? '', list);
  }
  return { user, devices, roles, metadata: was.metadata ?? {} };
}
