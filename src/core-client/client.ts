// createCoreClient: the typed methods of the core's HTTP interface, each a thin description of one endpoint
// (method, path, scope per core-api.md §1.5, body) over the shared request pipeline.
import { DEFAULT_RETRY } from './retry.js';
import { normaliseAppId, normaliseTenantId, parseBaseUrl } from './paths.js';
import { sendJson, sendRequest, type RequestContext } from './request.js';
import { createPool } from './transport.js';
import type { BulkImportUserResult, ListStagedUsersResult } from './import-bodies.js';
import type {
  ApiVersionResult,
  ConsumeCodeResult,
  CoreClient,
  CoreClientOptions,
  CreateCodeResult,
  CreateEmailVerificationTokenResult,
  CreatePrimaryUserResult,
  CreateUserIdMappingResult,
  DeleteLicenseResult,
  FeatureFlagsResult,
  GetLicenseResult,
  GetUserByIdResult,
  GetUserIdMappingResult,
  TenantConfigResult,
  ImportPasswordHashResult,
  ImportTotpDeviceResult,
  IsEmailVerifiedResult,
  LinkAccountsResult,
  ListTotpDevicesResult,
  ListUsersResult,
  RawRequest,
  RemoveTotpDeviceResult,
  SetLicenseResult,
  SignInResult,
  ThirdPartySignInUpResult,
  UpdatePasswordlessUserResult,
  VerifyEmailTokenResult,
  VerifyTotpDeviceResult,
  VerifyTotpResult,
} from './types.js';

export const DEFAULT_CDI_VERSION = '5.4';
export const DEFAULT_TIMEOUT_MS = 30_000;

export function createCoreClient(options: CoreClientOptions): CoreClient {
  const base = parseBaseUrl(options.url);
  const ownsPool = !options.dispatcher;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ctx: RequestContext = {
    base,
    pool: options.dispatcher ?? createPool(base, options.maxSockets ?? 64, timeoutMs, options.tls),
    apiKey: options.apiKey || undefined,
    appId: normaliseAppId(options.appId),
    cdiVersion: options.cdiVersion ?? DEFAULT_CDI_VERSION,
    timeoutMs,
    retry: options.retry ?? DEFAULT_RETRY,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    onRetry: options.onRetry,
    observers: new Set(),
    random: Math.random,
  };
  return clientFor(ctx, normaliseTenantId(options.tenantId), ownsPool);
}

function clientFor(ctx: RequestContext, tenantId: string, ownsPool: boolean): CoreClient {
  const json = <T>(req: RawRequest, needsStatus = true) => sendJson<T>(ctx, tenantId, req, needsStatus);
  const post = <T>(path: string, scope: 'tenant' | 'app', body: unknown) => json<T>({ method: 'POST', path, scope, body });
  const get = <T>(path: string, scope: 'tenant' | 'app' | 'none', query?: RawRequest['query']) =>
    json<T>({ method: 'GET', path, scope, query });
  const send: Senders = { json, post, get };

  return {
    url: ctx.base.display,
    tenantId,
    appId: ctx.appId,
    cdiVersion: ctx.cdiVersion,
    forTenant: (t) => clientFor(ctx, normaliseTenantId(t), false),
    withRetry: (retry) => clientFor({ ...ctx, retry }, tenantId, false),
    countingLost: (lost) => clientFor({ ...ctx, lost }, tenantId, false),

    importPasswordHash: (input) =>
      post<ImportPasswordHashResult>('/recipe/user/passwordhash/import', 'tenant', {
        email: input.email,
        passwordHash: input.passwordHash,
        ...(input.hashingAlgorithm !== undefined ? { hashingAlgorithm: input.hashingAlgorithm } : {}),
      }),
    thirdPartySignInUp: (input) =>
      post<ThirdPartySignInUpResult>('/recipe/signinup', 'tenant', {
        thirdPartyId: input.thirdPartyId,
        thirdPartyUserId: input.thirdPartyUserId,
        email: { id: input.email.id, isVerified: input.email.isVerified },
      }),
    createCode: (input) => post<CreateCodeResult>('/recipe/signinup/code', 'tenant', input),
    consumeCode: (input) => post<ConsumeCodeResult>('/recipe/signinup/code/consume', 'tenant', input),
    // rid: passwordless is what makes the core route this to the passwordless handler (§1.5).
    updatePasswordlessUser: (input) =>
      json<UpdatePasswordlessUserResult>({ method: 'PUT', path: '/recipe/user', scope: 'app', rid: 'passwordless', body: input }),
    createPrimaryUser: (recipeUserId) => post<CreatePrimaryUserResult>('/recipe/accountlinking/user/primary', 'app', { recipeUserId }),
    linkAccounts: (recipeUserId, primaryUserId) =>
      post<LinkAccountsResult>('/recipe/accountlinking/user/link', 'app', { recipeUserId, primaryUserId }),
    createUserIdMapping: (input) => post<CreateUserIdMappingResult>('/recipe/userid/map', 'app', input),
    getUserIdMapping: (userId, type = 'ANY') => get<GetUserIdMappingResult>('/recipe/userid/map', 'app', { userId, userIdType: type }),
    importTotpDevice: (input) => post<ImportTotpDeviceResult>('/recipe/totp/device/import', 'app', input),
    listTotpDevices: (userId) => get<ListTotpDevicesResult>('/recipe/totp/device/list', 'app', { userId }),
    removeTotpDevice: (userId, deviceName) => post<RemoveTotpDeviceResult>('/recipe/totp/device/remove', 'app', { userId, deviceName }),
    verifyTotp: (userId, totp) => post<VerifyTotpResult>('/recipe/totp/verify', 'tenant', { userId, totp }),
    verifyTotpDevice: (input) => post<VerifyTotpDeviceResult>('/recipe/totp/device/verify', 'tenant', input),
    createEmailVerificationToken: (userId, email) =>
      post<CreateEmailVerificationTokenResult>('/recipe/user/email/verify/token', 'tenant', { userId, email }),
    verifyEmailToken: (token) => post<VerifyEmailTokenResult>('/recipe/user/email/verify', 'tenant', { method: 'token', token }),
    isEmailVerified: (userId, email) => get<IsEmailVerifiedResult>('/recipe/user/email/verify', 'app', { userId, email }),
    ...userMethods(send),

    hello: async () => (await sendRequest(ctx, tenantId, { method: 'GET', path: '/hello', scope: 'none' })).text.trim(),
    ...licenseMethods(send),
    bulkImport: bulkImportMethods(send),

    raw: (req) => sendRequest(ctx, tenantId, req),
    observe: (listener) => {
      const observers = (ctx.observers ??= new Set());
      observers.add(listener);
      return () => observers.delete(listener);
    },
    close: () => {
      // Sockets are closed at once; requests still in flight fail (the callers have stopped by then).
      if (ownsPool) void ctx.pool.destroy().catch(() => {});
    },
  };
}

/** The three ways a method sends its request: as described, a POST with a body, a GET with a query. */
interface Senders {
  json: <T>(req: RawRequest, needsStatus?: boolean) => Promise<T>;
  post: <T>(path: string, scope: 'tenant' | 'app', body: unknown) => Promise<T>;
  get: <T>(path: string, scope: 'tenant' | 'app' | 'none', query?: RawRequest['query']) => Promise<T>;
}

type UserMethods =
  | 'getUserById'
  | 'listUsers'
  | 'listUsersByAccountInfo'
  | 'updateUserMetadata'
  | 'getUserMetadata'
  | 'createRole'
  | 'addUserRole'
  | 'getUserRoles'
  | 'getTenantConfig'
  | 'signIn';

/** Users, their metadata and roles, the tenant's configuration, and a sign-in. */
function userMethods({ json, post, get }: Senders): Pick<CoreClient, UserMethods> {
  return {
    getUserById: (userId) => get<GetUserByIdResult>('/user/id', 'app', { userId }),
    listUsers: (input = {}) =>
      get<ListUsersResult>('/users', 'tenant', {
        limit: input.limit,
        paginationToken: input.paginationToken,
        timeJoinedOrder: input.timeJoinedOrder,
        includeRecipeIds: input.includeRecipeIds?.join(','),
        email: input.email?.join(';'),
        phone: input.phone?.join(';'),
        provider: input.provider?.join(';'),
      }),
    listUsersByAccountInfo: (input) =>
      get<ListUsersResult>('/users/by-accountinfo', 'tenant', {
        email: input.email,
        phoneNumber: input.phoneNumber,
        thirdPartyId: input.thirdPartyId,
        thirdPartyUserId: input.thirdPartyUserId,
        doUnionOfAccountInfo: String(input.doUnionOfAccountInfo ?? false),
      }),
    updateUserMetadata: (userId, metadataUpdate) =>
      json({ method: 'PUT', path: '/recipe/user/metadata', scope: 'app', body: { userId, metadataUpdate } }),
    getUserMetadata: (userId) => get('/recipe/user/metadata', 'app', { userId }),
    createRole: (role, permissions) =>
      json({ method: 'PUT', path: '/recipe/role', scope: 'app', body: { role, ...(permissions ? { permissions } : {}) } }),
    addUserRole: (userId, role) => json({ method: 'PUT', path: '/recipe/user/role', scope: 'tenant', body: { userId, role } }),
    getUserRoles: (userId) => get('/recipe/user/roles', 'tenant', { userId }),
    getTenantConfig: () => get<TenantConfigResult>('/recipe/multitenancy/tenant/v2', 'tenant'),
    signIn: (email, password) => post<SignInResult>('/recipe/signin', 'tenant', { email, password }),
  };
}

type LicenseMethods = 'apiVersion' | 'featureFlags' | 'getLicense' | 'setLicense' | 'deleteLicense';

/** The core's version, its licence and the features it enables. */
function licenseMethods({ json, get }: Senders): Pick<CoreClient, LicenseMethods> {
  return {
    apiVersion: () => json<ApiVersionResult>({ method: 'GET', path: '/apiversion', scope: 'app' }, false),
    featureFlags: () => get<FeatureFlagsResult>('/ee/featureflag', 'app'),
    getLicense: () => get<GetLicenseResult>('/ee/license', 'app'),
    setLicense: (licenseKey) => json<SetLicenseResult>({ method: 'PUT', path: '/ee/license', scope: 'app', body: { licenseKey } }),
    deleteLicense: () => json<DeleteLicenseResult>({ method: 'DELETE', path: '/ee/license', scope: 'app' }),
  };
}

/** The bulk-import endpoints: one user at once, or staged for the core's job. */
function bulkImportMethods({ json, post, get }: Senders): CoreClient['bulkImport'] {
  return {
    importUser: (user) => post<BulkImportUserResult>('/bulk-import/import', 'app', user),
    addUsers: (users) => post('/bulk-import/users', 'app', { users }),
    listUsers: (input) =>
      get<ListStagedUsersResult>('/bulk-import/users', 'app', {
        status: input.status,
        limit: input.limit,
        paginationToken: input.paginationToken,
      }),
    countUsers: (status) => get('/bulk-import/users/count', 'app', { status }),
    removeUsers: (ids) => json({ method: 'POST', path: '/bulk-import/users/remove', scope: 'app', body: { ids } }, false),
  };
}
