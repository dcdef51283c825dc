// `--via bulk|bulk-staged`: one canonical record becomes one bulk-import user (core 10.0+, the body of
// POST /bulk-import/import and of each item of POST /bulk-import/users): every first factor a login method (the
// first one primary when there are several), the email/SMS one-time-code factors as passwordless login methods,
// the record's timeJoined on each, the external id, metadata, roles and TOTP devices with base32 secrets. The
// same rules as plan.ts (which secrets, which emails count as verified), in one request instead of many.
// Invariant: the same rules as the per-user plan (plan.ts): which secrets are sent and which emails count as verified
// agree.
import type { BulkLoginMethodBody, BulkUserBody } from '../../../core-client/import-bodies.js';
import { toBase32Secret } from '../../../records/secrets.js';
import type { CanonicalUser, PasswordAlgorithm } from '../../../records/types.js';
import {
  DEFAULT_TOTP_PERIOD,
  DEFAULT_TOTP_SKEW,
  PlanError,
  deviceNames,
  effectiveRecord,
  importablePassword,
  roleAssignments,
  signInEntry,
  type PlanOptions,
} from '../../plan/plan.js';
import { LEGACY_ENTRY_KEY } from 'auth-migrate-signin/protocol';

export interface BulkPlanOptions extends PlanOptions {
  /** The run's tenant (every login method and bare role is put there); default public. */
  tenantId?: string;
  /**
   * The join time of a record that has none (`--via bulk-staged` sets it, so that the user it stages is known by
   * its login method's join time in the core); without it the core takes its own now.
   */
  joinedWhenUnknown?: number;
}

/** The bulk API names the scrypt variant firebase_scrypt (CoreConfig's PASSWORD_HASHING_ALG values). */
const BULK_ALGORITHM: Record<PasswordAlgorithm, string> = { bcrypt: 'bcrypt', argon2: 'argon2', external_scrypt: 'firebase_scrypt' };

function firstFactors(record: CanonicalUser, joined: Partial<BulkLoginMethodBody>): BulkLoginMethodBody[] {
  const out: BulkLoginMethodBody[] = [];
  if (record.password) {
    const { email, algorithm } = importablePassword(record, record.password);
    out.push({
      recipeId: 'emailpassword',
      ...joined,
      isVerified: record.emailVerified === true,
      email,
      passwordHash: record.password.hash,
      hashingAlgorithm: BULK_ALGORITHM[algorithm],
    });
  }
  for (const tp of record.thirdParty ?? []) {
    const email = tp.email ?? record.email;
    if (!email) throw new PlanError(`the ${tp.providerId} login has no email (the core requires one)`);
    const isVerified = tp.emailVerified ?? (tp.email === undefined || tp.email === record.email ? (record.emailVerified ?? false) : false);
    out.push({ recipeId: 'thirdparty', ...joined, isVerified, email, thirdPartyId: tp.providerId, thirdPartyUserId: tp.userId });
  }
  // Passwordless sign-in proves the contact: verified, as a consumed code marks it on the steps path.
  if (record.phoneNumber) out.push({ recipeId: 'passwordless', ...joined, isVerified: true, phoneNumber: record.phoneNumber });
  return out;
}

/** The one-time-code factors: the phone sign-in's own method gets the email, or a passwordless method of their own. */
function otpFactors(record: CanonicalUser, methods: BulkLoginMethodBody[], joined: Partial<BulkLoginMethodBody>): void {
  const otp = record.otpFactors;
  if (!otp || (!otp.email && !otp.phoneNumber)) return;
  const phone = methods.find((m) => m.recipeId === 'passwordless' && m.phoneNumber !== undefined);
  if (phone && otp.phoneNumber === record.phoneNumber) {
    if (otp.email) phone.email = otp.email;
    return;
  }
  methods.push({
    recipeId: 'passwordless',
    ...joined,
    isVerified: true,
    ...(otp.email ? { email: otp.email } : {}),
    ...(otp.phoneNumber ? { phoneNumber: otp.phoneNumber } : {}),
  });
}

export function planBulkUser(source: CanonicalUser, options: BulkPlanOptions = {}): BulkUserBody {
  const record = effectiveRecord(source, options);
  const tenant = options.tenantId && options.tenantId !== 'public' ? options.tenantId : undefined;
  const time = record.timeJoined ?? options.joinedWhenUnknown;
  const joined: Partial<BulkLoginMethodBody> = {
    ...(tenant ? { tenantIds: [tenant] } : {}),
    ...(time !== undefined ? { timeJoinedInMSSinceEpoch: time } : {}),
  };
  const loginMethods = firstFactors(record, joined);
  if (loginMethods.length === 0) throw new PlanError('the record has no first factor (password, third-party login or phone sign-in)');
  otpFactors(record, loginMethods, joined);
  if (loginMethods.length > 1) loginMethods[0]!.isPrimary = true;

  const body: BulkUserBody = { loginMethods };
  const externalUserId = record.externalUserId ?? (options.keepSourceIds ? record.id : undefined);
  if (externalUserId !== undefined) body.externalUserId = externalUserId;
  if (record.metadata && Object.keys(record.metadata).length > 0) body.userMetadata = record.metadata;
  // Migration at first sign-in: the legacy entry goes in with the user (a bulk user is created whole or not at all).
  const entry = signInEntry(source, options);
  if (entry) body.userMetadata = { ...body.userMetadata, [LEGACY_ENTRY_KEY]: entry };
  const roles = roleAssignments(record);
  if (roles.length > 0) {
    const byRole = new Map<string, string[]>();
    for (const { role, tenantId } of roles) {
      const t = tenantId ?? tenant ?? 'public';
      const list = byRole.get(role) ?? [];
      if (!list.includes(t)) list.push(t);
      byRole.set(role, list);
    }
    body.userRoles = [...byRole].map(([role, tenantIds]) => ({ role, tenantIds }));
  }
  const names = deviceNames(record);
  if (record.totp && record.totp.length > 0) {
    body.totpDevices = record.totp.map((device, i) => {
      let secretKey: string;
      try {
        secretKey = toBase32Secret(device.secret, device.encoding ?? 'base32');
      } catch (err) {
        throw new PlanError(`totp[${i}]: ${(err as Error).message}`);
      }
      return { secretKey, period: device.period ?? DEFAULT_TOTP_PERIOD, skew: device.skew ?? DEFAULT_TOTP_SKEW, deviceName: names[i]! };
    });
  }
  return body;
}

/** The body with every password hash and TOTP secret replaced by `***`: for the dry run and messages. */
export function maskBulkUser(body: BulkUserBody): BulkUserBody {
  return {
    ...body,
    loginMethods: body.loginMethods.map((m) => (m.passwordHash !== undefined ? { ...m, passwordHash: '***' } : m)),
    ...(body.userMetadata?.[LEGACY_ENTRY_KEY]
      ? { userMetadata: { ...body.userMetadata, [LEGACY_ENTRY_KEY]: { ...(body.userMetadata[LEGACY_ENTRY_KEY] as object), hash: '***' } } }
      : {}),
    ...(body.totpDevices ? { totpDevices: body.totpDevices.map((d) => ({ ...d, secretKey: '***' })) } : {}),
  };
}

/** The roles a bulk user names: the core refuses a user whose role does not exist yet, so they are created first. */
export function bulkRoles(body: BulkUserBody): string[] {
  return (body.userRoles ?? []).map((r) => r.role);
}
