// The bulk-import API of the core (reference core 10.0+, webserver/api/bulkimport): the body of one bulk user
// (BulkImportUserUtils' schema) and the answers of POST /bulk-import/import, POST|GET /bulk-import/users,
// GET /bulk-import/users/count and POST /bulk-import/users/remove.
import type { CoreUser } from './types.js';

export type BulkRecipeId = 'emailpassword' | 'thirdparty' | 'passwordless';

export interface BulkLoginMethodBody {
  recipeId: BulkRecipeId;
  tenantIds?: string[];
  isVerified?: boolean;
  isPrimary?: boolean;
  timeJoinedInMSSinceEpoch?: number;
  email?: string;
  passwordHash?: string;
  hashingAlgorithm?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  phoneNumber?: string;
}

export interface BulkUserBody {
  externalUserId?: string;
  userMetadata?: Record<string, unknown>;
  userRoles?: Array<{ role: string; tenantIds: string[] }>;
  totpDevices?: Array<{ secretKey: string; period: number; skew: number; deviceName?: string }>;
  loginMethods: BulkLoginMethodBody[];
}

export type BulkImportStatus = 'NEW' | 'PROCESSING' | 'FAILED';

/** POST /bulk-import/import on success (a refusal is HTTP 400 `{"errors": [...]}`). */
export interface BulkImportUserResult {
  status: 'OK';
  user: CoreUser;
}

/** One staged user as POST /bulk-import/users answers it (BulkImportUser.toResponseJson). */
export interface StagedUserAnswer {
  /** The external id when given, otherwise the id the import will give the primary login method. */
  userId: string;
  loginMethods: Array<{ recipeId: string; userId: string; tenants: string[] }>;
}

/** A row of GET /bulk-import/users: the stored bulk user plus its state. */
export interface StagedUserRow {
  id: string;
  externalUserId?: string;
  status: BulkImportStatus;
  errorMessage?: string;
  createdAt: number;
  updatedAt: number;
  loginMethods: Array<BulkLoginMethodBody & { superTokensUserId: string }>;
}

export interface ListStagedUsersResult {
  status: 'OK';
  users: StagedUserRow[];
  nextPaginationToken?: string;
}

/** The HTTP 400 body of a refused batch (every user is validated; none is staged). */
export interface RefusedBatch {
  error: string;
  users: Array<{ index: number; errors: string[] }>;
}

export interface BulkImportClient {
  importUser(user: BulkUserBody): Promise<BulkImportUserResult>;
  /** Stages the users; a batch with an invalid user throws CoreHttpError 400 whose body is a RefusedBatch. */
  addUsers(users: BulkUserBody[]): Promise<{ status: 'OK'; users?: StagedUserAnswer[] }>;
  listUsers(input: { status?: BulkImportStatus; limit?: number; paginationToken?: string }): Promise<ListStagedUsersResult>;
  countUsers(status?: BulkImportStatus): Promise<{ status: 'OK'; count: number }>;
  removeUsers(ids: string[]): Promise<{ deletedIds: string[]; invalidIds: string[] }>;
}
