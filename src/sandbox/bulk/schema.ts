// The bulk-import user schema, as the reference core's BulkImportUserUtils.createBulkImportUserFromJSON checks and
// normalises it: every error of a user is collected (same texts, same order), ids are generated for each login
// method (GENERATE) or read back from the staged row (READ_STORED), and the user's id is its primary login method's.
import { newUserId } from '../users.js';
import { field, hasType } from './fields.js';
import { RECIPE_FIELDS } from './recipe-fields.js';

export interface BulkLoginMethod {
  tenantIds: string[];
  isVerified: boolean;
  isPrimary: boolean;
  timeJoinedInMSSinceEpoch: number;
  recipeId: string;
  email?: string;
  passwordHash?: string;
  hashingAlgorithm?: string;
  plainTextPassword?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  phoneNumber?: string;
  superTokensUserId: string;
  externalUserId?: string;
}

export interface BulkUser {
  id: string;
  externalUserId?: string;
  userMetadata?: Record<string, unknown>;
  userRoles?: Array<{ role: string; tenantIds: string[] }>;
  totpDevices?: Array<{ secretKey: string; period: number; skew: number; deviceName?: string }>;
  loginMethods: BulkLoginMethod[];
}

/** What validation reads from the core: the app's roles and tenants, the licence's features, the clock. */
export interface SchemaEnv {
  roles: ReadonlySet<string>;
  tenants: ReadonlySet<string>;
  multitenancy: boolean;
  mfa: boolean;
  accountLinking: boolean;
  now: number;
  /** External ids already seen in this request (the reference keeps them per BulkImportUserUtils instance). */
  externalIds: Set<string>;
}

export type IdMode = 'GENERATE' | 'READ_STORED';
export type Parsed = { ok: true; user: BulkUser } | { ok: false; errors: string[] };
type Json = Record<string, unknown>;

function tenantIdsOf(env: SchemaEnv, raw: string[] | undefined, errors: string[], suffix: string): string[] {
  if (raw === undefined) return ['public'];
  const out: string[] = [];
  for (const tenantId of raw) {
    if (tenantId === 'public') {
      out.push(tenantId);
      continue;
    }
    if (!env.multitenancy) {
      errors.push('Multitenancy must be enabled before importing users to a different tenant.');
      continue;
    }
    const normalised = tenantId.trim().toLowerCase();
    if (!env.tenants.has(normalised)) errors.push(`Invalid tenantId: ${tenantId}${suffix}`);
    else out.push(normalised);
  }
  return out;
}

function rolesOf(env: SchemaEnv, data: Json, errors: string[]): BulkUser['userRoles'] {
  const list = field(data, 'userRoles', 'array of object', false, errors, '.');
  if (list === undefined) return undefined;
  const out: NonNullable<BulkUser['userRoles']> = [];
  for (const item of list) {
    const role = field(item, 'role', 'string', true, errors, ' for a user role.');
    const rawTenants = field(item, 'tenantIds', 'array of string', true, errors, ' for a user role.');
    let normalised: string | undefined;
    if (role !== undefined) {
      if (role.length > 255) errors.push(`role ${role} is too long. Max length is 255.`);
      normalised = role.trim();
      if (!env.roles.has(normalised)) errors.push(`Role ${normalised} does not exist.`);
    }
    const tenantIds = rawTenants === undefined ? undefined : tenantIdsOf(env, rawTenants, errors, ' for a user role.');
    if (normalised !== undefined && tenantIds !== undefined) out.push({ role: normalised, tenantIds });
  }
  return out;
}

function totpOf(env: SchemaEnv, data: Json, errors: string[]): BulkUser['totpDevices'] {
  const list = field(data, 'totpDevices', 'array of object', false, errors, '.');
  if (list === undefined) return undefined;
  if (!env.mfa) {
    errors.push('MFA must be enabled to import totp devices.');
    return undefined;
  }
  const out: NonNullable<BulkUser['totpDevices']> = [];
  const sfx = ' for a totp device.';
  for (const item of list) {
    const secretKey = field(item, 'secretKey', 'string', true, errors, sfx);
    const period = field(item, 'period', 'integer', false, errors, sfx) ?? 30;
    const skew = field(item, 'skew', 'integer', false, errors, sfx) ?? 1;
    let deviceName = field(item, 'deviceName', 'string', false, errors, sfx);
    // The reference echoes the secret in this text; the workbench never logs these answers.
    if (secretKey !== undefined && secretKey.length > 256) errors.push(`TOTP secretKey ${secretKey} is too long. Max length is 256.`);
    const periodOk = period >= 1;
    const skewOk = skew >= 0;
    if (!periodOk) errors.push('period should be > 0 for a totp device.');
    if (!skewOk) errors.push('skew should be >= 0 for a totp device.');
    if (deviceName !== undefined) {
      if (deviceName.length > 256) errors.push(`TOTP deviceName ${deviceName} is too long. Max length is 256.`);
      deviceName = deviceName.trim();
    }
    if (secretKey !== undefined && periodOk && skewOk)
      out.push({ secretKey, period, skew, ...(deviceName !== undefined ? { deviceName } : {}) });
  }
  return out;
}

function loginMethodsOf(env: SchemaEnv, data: Json, errors: string[], idMode: IdMode): BulkLoginMethod[] {
  const list = field(data, 'loginMethods', 'array of object', true, errors, '.');
  if (list === undefined) return [];
  if (list.length === 0) {
    errors.push('At least one loginMethod is required.');
    return [];
  }
  if (list.length > 1 && !env.accountLinking) errors.push('Account linking must be enabled to import multiple loginMethods.');
  let primaries = 0;
  for (const lm of list) {
    if (hasType(lm, 'isPrimary', 'boolean') && lm.isPrimary === true && primaries++ > 0)
      errors.push('No two loginMethods can have isPrimary as true.');
  }
  const out: BulkLoginMethod[] = [];
  for (const lm of list) {
    const sfx = ' for a loginMethod.';
    const recipeId = field(lm, 'recipeId', 'string', true, errors, sfx);
    const rawTenants = field(lm, 'tenantIds', 'array of string', false, errors, sfx);
    const isVerified = field(lm, 'isVerified', 'boolean', false, errors, sfx) ?? false;
    const isPrimary = field(lm, 'isPrimary', 'boolean', false, errors, sfx) ?? false;
    const timeJoined = field(lm, 'timeJoinedInMSSinceEpoch', 'integer', false, errors, ' for a loginMethod');
    if (recipeId !== undefined && !(recipeId in RECIPE_FIELDS))
      errors.push('Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!');
    const tenantIds = tenantIdsOf(env, rawTenants, errors, ` for ${recipeId ?? 'null'} recipe.`);
    if (timeJoined !== undefined && timeJoined > env.now) errors.push('timeJoined cannot be in future for a loginMethod.');
    if (timeJoined !== undefined && timeJoined < 0) errors.push('timeJoined cannot be < 0 for a loginMethod.');
    const superTokensUserId =
      idMode === 'GENERATE' ? newUserId() : (field(lm, 'superTokensUserId', 'string', true, errors, ' for a loginMethod') ?? '');
    const recipe = recipeId !== undefined ? RECIPE_FIELDS[recipeId] : undefined;
    if (!recipe) continue;
    const f = recipe(lm, errors);
    // Built in the reference's field order (Gson writes BulkImportUser.LoginMethod's fields in declaration order).
    const method: BulkLoginMethod = {
      tenantIds,
      isVerified,
      isPrimary,
      timeJoinedInMSSinceEpoch: timeJoined ?? env.now,
      recipeId: recipeId!,
      email: f.email,
      passwordHash: f.passwordHash,
      hashingAlgorithm: f.hashingAlgorithm,
      plainTextPassword: f.plainTextPassword,
      thirdPartyId: f.thirdPartyId,
      thirdPartyUserId: f.thirdPartyUserId,
      phoneNumber: f.phoneNumber,
      superTokensUserId,
    };
    for (const k of Object.keys(method) as Array<keyof BulkLoginMethod>) if (method[k] === undefined) delete method[k];
    out.push(method);
  }
  return out;
}

/** The primary login method: the one marked isPrimary, else the oldest (the first of equals). */
export function primaryMethod(methods: BulkLoginMethod[]): BulkLoginMethod {
  let oldest = methods[0]!;
  for (const m of methods) {
    if (m.isPrimary) return m;
    if (m.timeJoinedInMSSinceEpoch < oldest.timeJoinedInMSSinceEpoch) oldest = m;
  }
  return oldest;
}

export function parseBulkUser(env: SchemaEnv, data: Json, idMode: IdMode): Parsed {
  const errors: string[] = [];
  let externalUserId = field(data, 'externalUserId', 'string', false, errors, '.');
  const userMetadata = field(data, 'userMetadata', 'object', false, errors, '.');
  const userRoles = rolesOf(env, data, errors);
  const totpDevices = totpOf(env, data, errors);
  const loginMethods = loginMethodsOf(env, data, errors, idMode);
  if (externalUserId !== undefined) {
    if (externalUserId.length > 128) errors.push(`externalUserId ${externalUserId} is too long. Max length is 128.`);
    if (env.externalIds.has(externalUserId))
      errors.push(`externalUserId ${externalUserId} is not unique. It is already used by another user.`);
    env.externalIds.add(externalUserId);
    externalUserId = externalUserId.trim();
  }
  if (userRoles) {
    for (const r of userRoles) {
      for (const t of r.tenantIds) {
        if (t !== 'public' && !loginMethods.some((m) => m.tenantIds.includes(t)))
          errors.push(`TenantId ${t} for a user role does not exist in loginMethods.`);
      }
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const user: BulkUser = {
    id: primaryMethod(loginMethods).superTokensUserId,
    externalUserId,
    userMetadata,
    userRoles,
    totpDevices,
    loginMethods,
  };
  for (const k of Object.keys(user) as Array<keyof BulkUser>) if (user[k] === undefined) delete user[k];
  return { ok: true, user };
}
