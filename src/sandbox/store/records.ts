// The sandbox store's records: plain JSON values, never mutated in place (an update puts a new object),
// so a snapshot can capture the maps cheaply while requests go on.

export type RecipeId = 'emailpassword' | 'thirdparty' | 'passwordless';

/** One login method (a "recipe user"); linked ones point at their primary. */
export interface LoginMethod {
  app: string;
  id: string;
  recipeId: RecipeId;
  tenantIds: string[];
  timeJoined: number;
  email?: string;
  phoneNumber?: string;
  thirdParty?: { id: string; userId: string };
  passwordHash?: string;
  /** Set on a primary user (its own id) and on every login method linked to it. */
  primaryUserId?: string;
  /**
   * A primary user whose own login method was removed while others stay linked to it (`POST /user/remove` with
   * `removeAllLinkedAccounts: false`, or unlinking a primary that has others): the reference keeps its id (its
   * app_id_to_user_id row, its mapping, its metadata) as the group's primary id (AuthRecipe.deleteUserHelper,
   * AuthRecipe.java:1359-1360). Such a record has no email, phone, third party or hash, and is no login method.
   */
  ghost?: true;
}

export interface UserIdMapping {
  app: string;
  superTokensUserId: string;
  externalUserId: string;
  externalUserIdInfo?: string;
}

export interface PasswordlessCode {
  codeId: string;
  /** base64url SHA-256 of the link code. */
  linkCodeHash: string;
  createdAt: number;
}

export interface PasswordlessDevice {
  app: string;
  tenant: string;
  preAuthSessionId: string;
  /** base64 of the 32 random device bytes. */
  deviceId: string;
  linkCodeSalt: string;
  email?: string;
  phoneNumber?: string;
  failedAttempts: number;
  codes: PasswordlessCode[];
}

export interface TotpDevice {
  name: string;
  secretKey: string;
  period: number;
  skew: number;
  verified: boolean;
  createdAt: number;
}

export interface TotpDevices {
  app: string;
  userId: string;
  devices: TotpDevice[];
}

export interface TotpUsedCode {
  code: string;
  valid: boolean;
  expiresAt: number;
  createdAt: number;
}

export interface TotpUsage {
  app: string;
  tenant: string;
  userId: string;
  codes: TotpUsedCode[];
}

export interface TenantConfig {
  app: string;
  tenantId: string;
  emailPasswordEnabled: boolean;
  thirdPartyEnabled: boolean;
  passwordlessEnabled: boolean;
  firstFactors?: string[] | null;
  requiredSecondaryFactors?: string[] | null;
  coreConfig: Record<string, unknown>;
}

export interface Verification {
  app: string;
  userId: string;
  email: string;
}

/** An email verification token of a tenant; only its SHA-256 (hex) is stored, as the reference core does. */
export interface EmailVerificationToken {
  app: string;
  tenant: string;
  userId: string;
  email: string;
  tokenHash: string;
  expiresAt: number;
}

/** User metadata (UserMetadata recipe), keyed by (app, user id as given). */
export interface UserMetadataRecord {
  app: string;
  userId: string;
  metadata: Record<string, unknown>;
}

/** A role of an app and its permissions (UserRoles recipe). */
export interface RoleRecord {
  app: string;
  role: string;
  permissions: string[];
}

/** The roles of a user in a tenant, keyed by (app, tenant, user id as given). */
export interface UserRolesRecord {
  app: string;
  tenant: string;
  userId: string;
  roles: string[];
}

export type BulkImportStatus = 'NEW' | 'PROCESSING' | 'FAILED';

/**
 * A user staged through POST /bulk-import/users (the reference's bulk_import_users row): `user` is the validated
 * user as the reference keeps it in raw_data (sandbox/bulk/schema.ts), the rest are the row's columns.
 */
export interface BulkImportRecord {
  app: string;
  id: string;
  status: BulkImportStatus;
  user: Record<string, unknown>;
  errorMessage?: string;
  createdAt: number;
  updatedAt: number;
}

/** Every collection of the store and the record type it holds. */
export interface Collections {
  users: LoginMethod;
  mappings: UserIdMapping;
  verified: Verification;
  evTokens: EmailVerificationToken;
  pless: PasswordlessDevice;
  totp: TotpDevices;
  totpUsed: TotpUsage;
  tenants: TenantConfig;
  meta: { value: string };
  metadata: UserMetadataRecord;
  roles: RoleRecord;
  userRoles: UserRolesRecord;
  bulkImport: BulkImportRecord;
}

export type CollectionName = keyof Collections;
export const COLLECTION_NAMES: CollectionName[] = [
  'users',
  'mappings',
  'verified',
  'evTokens',
  'pless',
  'totp',
  'totpUsed',
  'tenants',
  'meta',
  'metadata',
  'roles',
  'userRoles',
  'bulkImport',
];

/** One change: put a record under a key, or delete it (`v` absent). */
export type Change = { [C in CollectionName]: { c: C; k: string; v?: Collections[C] } }[CollectionName];

/** Keys join their parts with NUL, which no app id, tenant id, user id or email of a request contains. */
export function key(...parts: string[]): string {
  return parts.join('\u0000');
}
