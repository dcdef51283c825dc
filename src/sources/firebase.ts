// The Firebase `auth:export` reader: `{"users": [...]}` streamed element by element; scrypt hashes become
// `$f_scrypt$...` strings with the hash config, provider ids are mapped, phone and MFA facts kept.
import type { CanonicalThirdParty, CanonicalUser, RecordOrigin } from '../records/types.js';
import { buildExternalScrypt } from '../hashes/formats.js';
import type { HashConfig, SourceItem } from './index.js';
import { normaliseBase64 } from './base64.js';
import { addProblem, arr, bool, isObject, obj, sourceIdOf, str, type FieldContext } from './fields.js';
import { notAnObject, readJsonValues } from './json-values.js';
import type { ProviderLookup } from './providers.js';
import { keepMeta, keepMetaObject, keepMetaString } from './profile.js';
import type { SourceFindings } from './findings.js';

export interface FirebaseOptions {
  hashConfig?: HashConfig;
  providers: ProviderLookup;
  /** Notes the users a missing hash config leaves without their password (findings.ts). */
  findings?: SourceFindings;
}

/** The finding of users whose scrypt hash needs the hash config that was not given. */
export const HASH_CONFIG_MISSING = {
  rule: 'hash-config.missing',
  loses: 'their password (every Firebase scrypt hash)',
  because: "a Firebase scrypt hash needs the project's hash config, and none was given",
  fix: 'give --hash-config FILE (the "Password hash parameters" of the Firebase console)',
} as const;

export async function* readFirebase(path: string, options: FirebaseOptions): AsyncGenerator<SourceItem[]> {
  for await (const batch of readJsonValues(path, { arrayKey: 'users', ndjson: false })) {
    yield batch.map((raw) => (raw.ok ? firebaseItem(raw.value, raw.origin, options) : { kind: 'problem', problem: raw.problem }));
  }
}

/** Provider ids in `providerUserInfo` that are not third-party logins. */
const NOT_THIRD_PARTY = new Set(['password', 'phone', 'emailLink', 'anonymous']);

export function firebaseItem(value: unknown, origin: RecordOrigin, options: FirebaseOptions): SourceItem {
  if (!isObject(value)) return { kind: 'problem', problem: notAnObject(origin, value) };
  const ctx: FieldContext = { origin, problems: [] };
  const id = sourceIdOf(ctx, value, 'localId');
  if (id === undefined) return { kind: 'problem', problem: ctx.problems[0]! };
  const record: CanonicalUser = { id };
  const email = str(ctx, value, 'email');
  if (email !== undefined) record.email = email;
  const emailVerified = bool(ctx, value, 'emailVerified');
  if (emailVerified !== undefined) record.emailVerified = emailVerified;

  const passwordHash = str(ctx, value, 'passwordHash');
  const salt = str(ctx, value, 'salt');
  if (passwordHash !== undefined && passwordHash !== '') {
    if (!options.hashConfig) {
      addProblem(
        ctx,
        'passwordHash',
        'the user has a Firebase scrypt password hash but no hash config was given; pass --hash-config FILE (the "Password hash parameters" from the Firebase console)',
        'firebase.hash-config-missing',
      );
      options.findings?.dropped(HASH_CONFIG_MISSING);
    } else if (salt === undefined || salt === '') {
      addProblem(
        ctx,
        'salt',
        'the user has a passwordHash but no salt; the password cannot be migrated — export the user again',
        'firebase.salt-missing',
      );
    } else if (options.hashConfig.algorithm !== undefined && options.hashConfig.algorithm !== 'SCRYPT') {
      // A hash the core cannot take: kept for migration at first sign-in (the key stays in the hash config).
      const hc = options.hashConfig;
      record.legacyPassword = {
        algorithm: `firebase_${hc.algorithm!.toLowerCase()}`,
        hash: normaliseBase64(passwordHash),
        salt: normaliseBase64(salt),
        ...(hc.rounds > 0 ? { params: { rounds: hc.rounds } } : {}),
      };
    } else {
      const hc = options.hashConfig;
      const hash = buildExternalScrypt({
        passwordHash: normaliseBase64(passwordHash),
        salt: normaliseBase64(salt),
        memCost: hc.memCost,
        rounds: hc.rounds,
        saltSeparator: normaliseBase64(hc.saltSeparator),
      });
      record.password = { hash, algorithm: 'external_scrypt' };
    }
  }

  const phone = str(ctx, value, 'phoneNumber');
  if (phone !== undefined) record.phoneNumber = phone;

  const thirdParty = readProviders(ctx, value, record, options.providers);
  if (thirdParty.length > 0) record.thirdParty = thirdParty;
  readMfa(ctx, value, record);

  const disabled = bool(ctx, value, 'disabled');
  if (disabled) record.disabled = true;
  const createdAt = value['createdAt'];
  if (createdAt !== undefined && createdAt !== null) {
    const ms =
      typeof createdAt === 'number' ? createdAt : typeof createdAt === 'string' && /^\d+$/.test(createdAt) ? Number(createdAt) : NaN;
    if (Number.isFinite(ms)) record.timeJoined = ms;
    else
      addProblem(
        ctx,
        'createdAt',
        'createdAt must be epoch milliseconds (a string of digits); the join time is left out',
        'source.type',
        'warning',
      );
  }
  readProfile(ctx, value, record);
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

/** displayName, photoUrl, lastSignedInAt and the custom claims (`customAttributes`, JSON text) -> metadata. */
function readProfile(ctx: FieldContext, value: Record<string, unknown>, record: CanonicalUser): void {
  keepMetaString(ctx, record, value, 'displayName');
  keepMetaString(ctx, record, value, 'photoUrl');
  const last = value['lastSignedInAt'];
  const lastMs = typeof last === 'number' ? last : typeof last === 'string' && /^\d+$/.test(last) ? Number(last) : undefined;
  if (lastMs !== undefined) keepMeta(record, 'lastSignedInAt', lastMs);
  else if (last !== undefined && last !== null && last !== '')
    addProblem(
      ctx,
      'lastSignedInAt',
      'lastSignedInAt must be epoch milliseconds; it is left out of the metadata',
      'source.type',
      'warning',
    );
  keepMetaObject(ctx, record, value, 'customAttributes');
}

function readProviders(
  ctx: FieldContext,
  value: Record<string, unknown>,
  record: CanonicalUser,
  providers: ProviderLookup,
): CanonicalThirdParty[] {
  const list = arr(ctx, value, 'providerUserInfo') ?? [];
  const out: CanonicalThirdParty[] = [];
  list.forEach((info, i) => {
    const path = `providerUserInfo[${i}]`;
    if (!isObject(info)) return addProblem(ctx, path, `${path} must be an object`);
    const providerId = str(ctx, info, 'providerId', `${path}.providerId`, true);
    if (providerId === undefined || NOT_THIRD_PARTY.has(providerId)) return;
    const rawId = str(ctx, info, 'rawId', `${path}.rawId`, true);
    if (rawId === undefined) return;
    let mapped = providers(providerId);
    if (mapped === undefined) {
      mapped = providerId;
      addProblem(
        ctx,
        `${path}.providerId`,
        `provider "${providerId}" is not in the provider map; kept as "${providerId}" — map it if the core names it differently`,
        'source.provider-unmapped',
        'warning',
      );
    }
    const tp: CanonicalThirdParty = { providerId: mapped, userId: rawId };
    const email = str(ctx, info, 'email', `${path}.email`) ?? record.email;
    if (email !== undefined) tp.email = email;
    if (email !== undefined && email === record.email && record.emailVerified !== undefined) tp.emailVerified = record.emailVerified;
    out.push(tp);
  });
  return out;
}

function readMfa(ctx: FieldContext, value: Record<string, unknown>, record: CanonicalUser): void {
  const list = arr(ctx, value, 'mfaInfo') ?? [];
  list.forEach((factor, i) => {
    const path = `mfaInfo[${i}]`;
    if (!isObject(factor)) return addProblem(ctx, path, `${path} must be an object`);
    const phone = str(ctx, factor, 'phoneInfo', `${path}.phoneInfo`);
    if (phone !== undefined) {
      if (record.otpFactors?.phoneNumber === undefined) record.otpFactors = { ...record.otpFactors, phoneNumber: phone };
      else
        addProblem(
          ctx,
          `${path}.phoneInfo`,
          'a second SMS factor cannot be migrated (one phone number per user); only the first is kept',
          'firebase.mfa-extra-phone',
          'warning',
        );
    }
    const emailInfo = obj(ctx, factor, 'emailInfo', `${path}.emailInfo`);
    const mfaEmail = emailInfo ? str(ctx, emailInfo, 'emailAddress', `${path}.emailInfo.emailAddress`) : undefined;
    if (mfaEmail !== undefined && record.otpFactors?.email === undefined) record.otpFactors = { ...record.otpFactors, email: mfaEmail };
    if (factor['totpInfo'] !== undefined) {
      addProblem(
        ctx,
        `${path}.totpInfo`,
        'Firebase exports TOTP factors without their secret, so this factor cannot be migrated; the user must enrol TOTP again (or supply the secret in a TOTP list)',
        'firebase.totp-without-secret',
        'warning',
      );
    }
  });
}
