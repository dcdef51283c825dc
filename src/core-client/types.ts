// Types of the core's HTTP interface (CDI 5.4) as the reference core answers it (see shared core-api.md),
// and the shape of the typed client. Business statuses are values (discriminated unions), never exceptions.
import type { LostWrites } from './lost-writes.js';
import type { Dispatcher } from 'undici';
import type { TlsOptions } from './transport.js';
import type { BulkImportClient } from './import-bodies.js';

// ---------------------------------------------------------------------------------------------
// The user object (§2, CDI >= 4.0)

export type RecipeId = 'emailpassword' | 'thirdparty' | 'passwordless' | 'webauthn';

export interface ThirdPartyInfo {
  id: string;
  userId: string;
}

export interface LoginMethod {
  tenantIds: string[];
  recipeUserId: string;
  verified: boolean;
  timeJoined: number;
  recipeId: RecipeId;
  email?: string;
  phoneNumber?: string;
  thirdParty?: ThirdPartyInfo;
  webauthn?: { credentialIds: string[] };
}

export interface CoreUser {
  id: string;
  isPrimaryUser: boolean;
  tenantIds: string[];
  timeJoined: number;
  emails: string[];
  phoneNumbers: string[];
  thirdParty: ThirdPartyInfo[];
  /** Only present on cdi-version >= 5.3. */
  webauthn?: { credentialIds: string[] };
  loginMethods: LoginMethod[];
}

// ---------------------------------------------------------------------------------------------
// Client options

export interface RetryPolicy {
  /** Retries after the first attempt (0 = no retry). */
  retries: number;
  /** Exponential backoff base: attempt n waits random(0, min(maxDelayMs, baseDelayMs * 2^(n-1))). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RetryInfo {
  method: string;
  /** Path sent (with prefix and query), never a body. */
  path: string;
  /** The attempt that failed, 1-based; the next one is attempt + 1. */
  attempt: number;
  delayMs: number;
  /** e.g. `HTTP 503`, `HTTP 429 (Retry-After 2 s)`, `ECONNRESET`, `timeout after 30000 ms`. */
  reason: string;
}

export interface CoreClientOptions {
  /** Base URL of the core; may carry a path (`http://h:3567/base`), which is kept. */
  url: string;
  apiKey?: string;
  /** Tenant for tenant-specific APIs (default: public). */
  tenantId?: string;
  /** App for every API (default: public). */
  appId?: string;
  /** Sent as `cdi-version` (default '5.4'). */
  cdiVersion?: string;
  /** Per attempt, from sending to the full answer (default 30000). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Upper bound for a honoured `Retry-After` (default 60000 ms). */
  maxRetryAfterMs?: number;
  onRetry?: (info: RetryInfo) => void;
  /** A caller-supplied undici dispatcher, e.g. a Pool shared by clients (then `close()` leaves it alone). */
  dispatcher?: Dispatcher;
  /** Connections of the internal keep-alive pool; size it to the concurrency (default 64). */
  maxSockets?: number;
  /** TLS settings for an https:// core (a private CA...); Node's defaults (and NODE_EXTRA_CA_CERTS) otherwise. */
  tls?: TlsOptions;
}

// ---------------------------------------------------------------------------------------------
// Results of each endpoint (HTTP 200 bodies), exactly the statuses of core-api.md

export type ImportPasswordHashResult = { status: 'OK'; user: CoreUser; didUserAlreadyExist: boolean };

export type ThirdPartySignInUpResult =
  | { status: 'OK'; createdNewUser: boolean; user: CoreUser; recipeUserId: string }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

export type CreateCodeInput = ({ email: string } | { phoneNumber: string } | { deviceId: string }) & {
  userInputCode?: string;
};

export type CreateCodeResult =
  | {
      status: 'OK';
      preAuthSessionId: string;
      codeId: string;
      deviceId: string;
      userInputCode: string;
      linkCode: string;
      timeCreated: number;
      codeLifetime: number;
    }
  | { status: 'RESTART_FLOW_ERROR' }
  | { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' };

export type ConsumeCodeInput =
  { preAuthSessionId: string; deviceId: string; userInputCode: string } | { preAuthSessionId: string; linkCode: string };

export interface ConsumedDevice {
  preAuthSessionId: string;
  failedCodeInputAttemptCount: number;
  email?: string;
  phoneNumber?: string;
}

export type ConsumeCodeResult =
  | { status: 'OK'; createdNewUser: boolean; user: CoreUser; recipeUserId: string; consumedDevice?: ConsumedDevice }
  | { status: 'RESTART_FLOW_ERROR' }
  | {
      status: 'INCORRECT_USER_INPUT_CODE_ERROR' | 'EXPIRED_USER_INPUT_CODE_ERROR';
      failedCodeInputAttemptCount: number;
      maximumCodeInputAttempts: number;
    };

export interface UpdatePasswordlessUserInput {
  recipeUserId: string;
  /** Absent: unchanged; null: cleared; string: new value. */
  email?: string | null;
  phoneNumber?: string | null;
}

export type UpdatePasswordlessUserResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string }
  | { status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

export type CreatePrimaryUserResult =
  | { status: 'OK'; wasAlreadyAPrimaryUser: boolean; user: CoreUser }
  | { status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string }
  | { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string };

export type LinkAccountsResult =
  | { status: 'OK'; accountsAlreadyLinked: boolean; user: CoreUser }
  | {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR';
      primaryUserId: string;
      description: string;
      user: CoreUser;
    }
  | { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string }
  | { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };

export interface CreateUserIdMappingInput {
  superTokensUserId: string;
  externalUserId: string;
  externalUserIdInfo?: string | null;
  force?: boolean;
}

export type CreateUserIdMappingResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' }
  | { status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR'; doesSuperTokensUserIdExist: boolean; doesExternalUserIdExist: boolean };

export type UserIdType = 'SUPERTOKENS' | 'EXTERNAL' | 'ANY';

export type GetUserIdMappingResult =
  { status: 'OK'; superTokensUserId: string; externalUserId: string; externalUserIdInfo?: string } | { status: 'UNKNOWN_MAPPING_ERROR' };

export interface ImportTotpDeviceInput {
  userId: string;
  deviceName?: string;
  /** Base32 secret; the core stores any non-empty string. */
  secretKey: string;
  period: number;
  skew: number;
}

export type ImportTotpDeviceResult = { status: 'OK'; deviceName: string } | { status: 'DEVICE_ALREADY_EXISTS_ERROR' };

export interface TotpDevice {
  name: string;
  period: number;
  skew: number;
  verified: boolean;
}

export type ListTotpDevicesResult = { status: 'OK'; devices: TotpDevice[] };

export type RemoveTotpDeviceResult = { status: 'OK'; didDeviceExist: boolean };

type TotpFailure =
  | { status: 'INVALID_TOTP_ERROR'; currentNumberOfFailedAttempts: number; maxNumberOfFailedAttempts: number }
  | { status: 'LIMIT_REACHED_ERROR'; retryAfterMs: number; currentNumberOfFailedAttempts: number; maxNumberOfFailedAttempts: number };

export type VerifyTotpResult = { status: 'OK' } | { status: 'UNKNOWN_USER_ID_ERROR' } | TotpFailure;

export interface VerifyTotpDeviceInput {
  userId: string;
  deviceName: string;
  totp: string;
}

export type VerifyTotpDeviceResult = { status: 'OK'; wasAlreadyVerified: boolean } | { status: 'UNKNOWN_DEVICE_ERROR' } | TotpFailure;

/** The token is a credential: whoever holds it can mark the email verified. Never log or journal it. */
export type CreateEmailVerificationTokenResult = { status: 'OK'; token: string } | { status: 'EMAIL_ALREADY_VERIFIED_ERROR' };

export type VerifyEmailTokenResult = { status: 'OK'; userId: string; email: string } | { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' };

export type IsEmailVerifiedResult = { status: 'OK'; isVerified: boolean };

export type GetUserByIdResult = { status: 'OK'; user: CoreUser } | { status: 'UNKNOWN_USER_ID_ERROR' };

export interface ListUsersInput {
  limit?: number;
  paginationToken?: string;
  timeJoinedOrder?: 'ASC' | 'DESC';
  includeRecipeIds?: RecipeId[];
  /** Dashboard search parameters (no pagination token is returned with them). */
  email?: string[];
  phone?: string[];
  provider?: string[];
}

export type ListUsersResult = { status: 'OK'; users: CoreUser[]; nextPaginationToken?: string };

/** Account info to find users by (`GET /users/by-accountinfo`, tenant-specific, CDI >= 4.0). */
export interface AccountInfoQuery {
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  /** false (default): every given piece must belong to one login method's user; true: any. */
  doUnionOfAccountInfo?: boolean;
}

/** `GET /recipe/multitenancy/tenant/v2` (TenantConfig.toJson_v2_5_1): firstFactors absent = every login method. */
export type TenantConfigResult =
  | { status: 'OK'; tenantId: string; firstFactors?: string[]; requiredSecondaryFactors?: string[]; coreConfig?: Record<string, unknown> }
  | { status: 'TENANT_NOT_FOUND_ERROR' };

export type SignInResult = { status: 'OK'; user: CoreUser; recipeUserId: string } | { status: 'WRONG_CREDENTIALS_ERROR' };

export interface ApiVersionResult {
  versions: string[];
}

export type FeatureFlagsResult = { status: 'OK'; features: string[]; usageStats?: Record<string, unknown> };

export type GetLicenseResult = { status: 'OK'; licenseKey: string } | { status: 'NO_LICENSE_KEY_FOUND_ERROR' };

export type SetLicenseResult = { status: 'OK' } | { status: 'INVALID_LICENSE_KEY_ERROR' } | { status: 'MISSING_EE_FOLDER_ERROR' };

export type DeleteLicenseResult = { status: 'OK' };

// ---------------------------------------------------------------------------------------------
// The raw escape hatch

/** Which prefix an API takes (§1.5): tenant-specific ones get `[/appid-<a>][/<t>]`, app-specific only `[/appid-<a>]`. */
export type ApiScope = 'tenant' | 'app' | 'none';

export interface RawRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API path such as `/recipe/signin` (without prefix). */
  path: string;
  scope: ApiScope;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  rid?: string;
}

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
}

// ---------------------------------------------------------------------------------------------
// The client

export interface CoreClient {
  /** Base URL as given (without trailing slash), for messages. */
  readonly url: string;
  readonly tenantId: string;
  readonly appId: string;
  /** The `cdi-version` header sent. */
  readonly cdiVersion: string;

  /** The same connection pool and options, another tenant. */
  forTenant(tenantId: string): CoreClient;
  /** The same connection pool and tenant, another retry policy (e.g. a quick first look at a core that may be down). */
  withRetry(retry: RetryPolicy): CoreClient;
  /** The same client whose writes without a clear answer (retried or not) are counted in `tally` (lost-writes.ts). */
  countingLost(tally: LostWrites): CoreClient;

  importPasswordHash(input: { email: string; passwordHash: string; hashingAlgorithm?: string }): Promise<ImportPasswordHashResult>;
  thirdPartySignInUp(input: {
    thirdPartyId: string;
    thirdPartyUserId: string;
    email: { id: string; isVerified: boolean };
  }): Promise<ThirdPartySignInUpResult>;
  createCode(input: CreateCodeInput): Promise<CreateCodeResult>;
  consumeCode(input: ConsumeCodeInput): Promise<ConsumeCodeResult>;
  updatePasswordlessUser(input: UpdatePasswordlessUserInput): Promise<UpdatePasswordlessUserResult>;
  createPrimaryUser(recipeUserId: string): Promise<CreatePrimaryUserResult>;
  linkAccounts(recipeUserId: string, primaryUserId: string): Promise<LinkAccountsResult>;
  createUserIdMapping(input: CreateUserIdMappingInput): Promise<CreateUserIdMappingResult>;
  getUserIdMapping(userId: string, type?: UserIdType): Promise<GetUserIdMappingResult>;
  importTotpDevice(input: ImportTotpDeviceInput): Promise<ImportTotpDeviceResult>;
  listTotpDevices(userId: string): Promise<ListTotpDevicesResult>;
  removeTotpDevice(userId: string, deviceName: string): Promise<RemoveTotpDeviceResult>;
  verifyTotp(userId: string, totp: string): Promise<VerifyTotpResult>;
  verifyTotpDevice(input: VerifyTotpDeviceInput): Promise<VerifyTotpDeviceResult>;
  /** Tenant-specific; userId is a supertokens or external id, taken as given; the core normalises the email. */
  createEmailVerificationToken(userId: string, email: string): Promise<CreateEmailVerificationTokenResult>;
  /** Tenant-specific: consumes the token (single use) and marks its (userId, email) verified app-wide. */
  verifyEmailToken(token: string): Promise<VerifyEmailTokenResult>;
  /** App-specific; the reference core matches (userId, email) exactly as given (pass a normalised email). */
  isEmailVerified(userId: string, email: string): Promise<IsEmailVerifiedResult>;
  getUserById(userId: string): Promise<GetUserByIdResult>;
  listUsers(input?: ListUsersInput): Promise<ListUsersResult>;
  /** Primary users holding a login method with this account info in the client's tenant (external ids where mapped). */
  listUsersByAccountInfo(input: AccountInfoQuery): Promise<ListUsersResult>;
  /** The client's tenant configuration. */
  getTenantConfig(): Promise<TenantConfigResult>;
  signIn(email: string, password: string): Promise<SignInResult>;

  /** User metadata (app-wide, by the user id as given): PUT merges (top-level keys replaced, null removes). */
  updateUserMetadata(userId: string, metadataUpdate: Record<string, unknown>): Promise<{ status: 'OK'; metadata: Record<string, unknown> }>;
  getUserMetadata(userId: string): Promise<{ status: 'OK'; metadata: Record<string, unknown> }>;
  /** Creates the role, or adds the permissions to it. */
  createRole(role: string, permissions?: string[]): Promise<{ status: 'OK'; createdNewRole: boolean }>;
  /** Tenant-specific. */
  addUserRole(userId: string, role: string): Promise<{ status: 'OK'; didUserAlreadyHaveRole: boolean } | { status: 'UNKNOWN_ROLE_ERROR' }>;
  getUserRoles(userId: string): Promise<{ status: 'OK'; roles: string[] }>;

  /** `GET /hello`: the text answer (`Hello`). No api-key needed. */
  hello(): Promise<string>;
  apiVersion(): Promise<ApiVersionResult>;
  featureFlags(): Promise<FeatureFlagsResult>;
  getLicense(): Promise<GetLicenseResult>;
  setLicense(licenseKey: string): Promise<SetLicenseResult>;
  deleteLicense(): Promise<DeleteLicenseResult>;

  /** The bulk-import API (core 10.0+; refused by cores without it, and by the reference on in-memory storage). */
  readonly bulkImport: BulkImportClient;

  /** Any request with the same headers, retries and error mapping; non-2xx answers still throw typed errors. */
  raw(request: RawRequest): Promise<RawResponse>;

  /**
   * Be told of every attempt's outcome (retries included), for a run that adapts its concurrency to the core;
   * returns the function that stops it. Shared by the clients of other tenants and retry policies of one pool.
   */
  observe?(listener: (answer: AttemptAnswer) => void): () => void;

  /** Destroys the internal keep-alive pool's sockets (not a caller-supplied dispatcher). */
  close(): void;
}

/** One attempt of a request, as an observer sees it (no path, body or answer text). */
export interface AttemptAnswer {
  /** A 5xx, a 429, a dropped or refused connection, or a timeout: the core is struggling (or away). */
  trouble: boolean;
  /** The HTTP status, when an answer came. */
  status?: number;
  /** How long the attempt took, from its sending to its answer (or its failure), in ms. */
  ms: number;
}
