// The canonical reader: JSON array, `{"users": [...]}` or NDJSON of canonical records (docs/formats.md).
import type {
  CanonicalOtpFactors,
  CanonicalPassword,
  CanonicalThirdParty,
  CanonicalTotp,
  CanonicalUser,
  RecordOrigin,
} from '../records/types.js';
import type { SourceItem } from './index.js';
import { addProblem, arr, bool, isObject, num, obj, oneOf, sourceIdOf, str, unknownKeys, type FieldContext } from './fields.js';
import { notAnObject, readJsonValues } from './json-values.js';

const USER_KEYS = new Set([
  'id',
  'email',
  'emailVerified',
  'externalUserId',
  'password',
  'thirdParty',
  'phoneNumber',
  'totp',
  'otpFactors',
  'timeJoined',
  'disabled',
  'metadata',
  'roles',
  'legacyPassword',
]);
const PASSWORD_KEYS = new Set(['hash', 'algorithm']);
const THIRD_PARTY_KEYS = new Set(['providerId', 'userId', 'email', 'emailVerified']);
const TOTP_KEYS = new Set(['secret', 'encoding', 'period', 'skew', 'deviceName', 'algorithm', 'digits']);
const OTP_KEYS = new Set(['email', 'phoneNumber']);

export async function* readCanonical(path: string): AsyncGenerator<SourceItem[]> {
  for await (const batch of readJsonValues(path, { arrayKey: 'users' })) {
    yield batch.map((raw) => (raw.ok ? canonicalItem(raw.value, raw.origin) : { kind: 'problem', problem: raw.problem }));
  }
}

/** One parsed JSON value to a record (or a problem when it cannot be one: not an object, no id). */
export function canonicalItem(value: unknown, origin: RecordOrigin): SourceItem {
  if (!isObject(value)) return { kind: 'problem', problem: notAnObject(origin, value) };
  const ctx: FieldContext = { origin, problems: [] };
  const id = sourceIdOf(ctx, value, 'id', 'id is empty; every record needs a unique source id');
  if (id === undefined) return { kind: 'problem', problem: ctx.problems[0]! };
  const record: CanonicalUser = { id };
  unknownKeys(ctx, value, USER_KEYS);
  const email = str(ctx, value, 'email');
  if (email !== undefined) record.email = email;
  const emailVerified = bool(ctx, value, 'emailVerified');
  if (emailVerified !== undefined) record.emailVerified = emailVerified;
  const externalUserId = str(ctx, value, 'externalUserId');
  if (externalUserId !== undefined) record.externalUserId = externalUserId;
  const password = readPassword(ctx, value);
  if (password) record.password = password;
  const thirdParty = readList(ctx, value, 'thirdParty', readThirdParty);
  if (thirdParty) record.thirdParty = thirdParty;
  const phone = str(ctx, value, 'phoneNumber');
  if (phone !== undefined) record.phoneNumber = phone;
  const totp = readList(ctx, value, 'totp', readTotp);
  if (totp) record.totp = totp;
  const otp = obj(ctx, value, 'otpFactors');
  if (otp) {
    unknownKeys(ctx, otp, OTP_KEYS, 'otpFactors.');
    const factors: CanonicalOtpFactors = {};
    const e = str(ctx, otp, 'email', 'otpFactors.email');
    if (e !== undefined) factors.email = e;
    const p = str(ctx, otp, 'phoneNumber', 'otpFactors.phoneNumber');
    if (p !== undefined) factors.phoneNumber = p;
    record.otpFactors = factors;
  }
  const timeJoined = num(ctx, value, 'timeJoined');
  if (timeJoined !== undefined) record.timeJoined = timeJoined;
  const disabled = bool(ctx, value, 'disabled');
  if (disabled !== undefined) record.disabled = disabled;
  const metadata = obj(ctx, value, 'metadata');
  if (metadata) record.metadata = metadata;
  // Roles are checked by the validator (names, or {role, tenantIds}); the reader only carries the list.
  const roles = arr(ctx, value, 'roles');
  if (roles) record.roles = roles as CanonicalUser['roles'];
  // A hash the core cannot take, as the record states it: the validator checks its shape (legacy-rules.ts).
  const legacy = value['legacyPassword'];
  if (legacy !== undefined && legacy !== null) record.legacyPassword = legacy as CanonicalUser['legacyPassword'];
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

function readPassword(ctx: FieldContext, value: Record<string, unknown>): CanonicalPassword | undefined {
  const p = obj(ctx, value, 'password');
  if (!p) return undefined;
  unknownKeys(ctx, p, PASSWORD_KEYS, 'password.');
  const hash = str(ctx, p, 'hash', 'password.hash', true);
  const algorithm = oneOf(ctx, p, 'algorithm', 'password.algorithm', ['bcrypt', 'argon2', 'external_scrypt'] as const);
  if (hash === undefined) return undefined;
  return algorithm ? { hash, algorithm } : { hash };
}

function readList<T>(
  ctx: FieldContext,
  value: Record<string, unknown>,
  key: string,
  one: (ctx: FieldContext, o: Record<string, unknown>, path: string) => T | undefined,
): T[] | undefined {
  const list = arr(ctx, value, key);
  if (!list) return undefined;
  const out: T[] = [];
  list.forEach((item, i) => {
    const path = `${key}[${i}]`;
    if (!isObject(item)) {
      addProblem(ctx, path, `${path} must be an object`);
      return;
    }
    const mapped = one(ctx, item, path);
    if (mapped !== undefined) out.push(mapped);
  });
  return out;
}

function readThirdParty(ctx: FieldContext, o: Record<string, unknown>, path: string): CanonicalThirdParty | undefined {
  unknownKeys(ctx, o, THIRD_PARTY_KEYS, `${path}.`);
  const providerId = str(ctx, o, 'providerId', `${path}.providerId`, true);
  const userId = str(ctx, o, 'userId', `${path}.userId`, true);
  const email = str(ctx, o, 'email', `${path}.email`);
  const emailVerified = bool(ctx, o, 'emailVerified', `${path}.emailVerified`);
  if (providerId === undefined || userId === undefined) return undefined;
  const tp: CanonicalThirdParty = { providerId, userId };
  if (email !== undefined) tp.email = email;
  if (emailVerified !== undefined) tp.emailVerified = emailVerified;
  return tp;
}

function readTotp(ctx: FieldContext, o: Record<string, unknown>, path: string): CanonicalTotp | undefined {
  unknownKeys(ctx, o, TOTP_KEYS, `${path}.`);
  const secret = str(ctx, o, 'secret', `${path}.secret`, true);
  const encoding = oneOf(ctx, o, 'encoding', `${path}.encoding`, ['base32', 'base64', 'hex'] as const);
  const period = num(ctx, o, 'period', `${path}.period`);
  const skew = num(ctx, o, 'skew', `${path}.skew`);
  const deviceName = str(ctx, o, 'deviceName', `${path}.deviceName`);
  const algorithm = str(ctx, o, 'algorithm', `${path}.algorithm`);
  const digits = num(ctx, o, 'digits', `${path}.digits`);
  if (secret === undefined) return undefined;
  const t: CanonicalTotp = { secret };
  if (encoding !== undefined) t.encoding = encoding;
  if (period !== undefined) t.period = period;
  if (skew !== undefined) t.skew = skew;
  if (deviceName !== undefined) t.deviceName = deviceName;
  if (algorithm !== undefined) t.algorithm = algorithm;
  if (digits !== undefined) t.digits = digits;
  return t;
}
