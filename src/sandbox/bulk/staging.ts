// The staged users of POST /bulk-import/users (the reference's bulk_import_users table): the row as GET
// /bulk-import/users shows it, its listing (created_at DESC, id DESC, with the reference's base64 `id;createdAt`
// pagination token), counts per status, and the schema environment validation reads from the store.
import type { Ctx } from '../context.js';
import { enabledFeatures } from '../license.js';
import type { BulkImportRecord, BulkImportStatus, StoreState } from '../store/index.js';
import type { SchemaEnv } from './schema.js';

export const STATUSES: BulkImportStatus[] = ['NEW', 'PROCESSING', 'FAILED'];

/** The schema environment of an app, read now. */
export function schemaEnv(ctx: Pick<Ctx, 'app' | 'state' | 'config' | 'now'>): SchemaEnv {
  const features = enabledFeatures(ctx);
  const roles = new Set<string>();
  for (const r of ctx.state.maps.roles.values()) if (r.app === ctx.app) roles.add(r.role);
  const tenants = new Set<string>(['public']);
  for (const t of ctx.state.maps.tenants.values()) if (t.app === ctx.app) tenants.add(t.tenantId);
  return {
    roles,
    tenants,
    multitenancy: features.includes('multi_tenancy'),
    mfa: features.includes('mfa'),
    // Utils.isAccountLinkingEnabled: account linking or MFA.
    accountLinking: features.includes('account_linking') || features.includes('mfa'),
    now: ctx.now,
    externalIds: new Set(),
  };
}

/** BulkImportUser.toJsonObject (Gson: declaration order, nulls left out). */
export function stagedJson(r: BulkImportRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r.user, status: r.status };
  if (r.errorMessage !== undefined) out.errorMessage = r.errorMessage;
  out.createdAt = r.createdAt;
  out.updatedAt = r.updatedAt;
  return out;
}

const byNewest = (a: BulkImportRecord, b: BulkImportRecord): number =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export class InvalidTokenError extends Error {}

/** BulkImportUserPaginationToken.extractTokenInfo: base64 of `id;createdAt`. */
function parseToken(token: string): { id: string; createdAt: number } {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(token) || token.length % 4 !== 0) throw new InvalidTokenError();
  // Java's split drops trailing empty parts, so `id;` is one part and refused.
  const parts = Buffer.from(token, 'base64').toString('utf8').split(';');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length !== 2 || !/^[+-]?\d+$/.test(parts[1]!)) throw new InvalidTokenError();
  return { id: parts[0]!, createdAt: Number(parts[1]) };
}

export const tokenOf = (r: Pick<BulkImportRecord, 'id' | 'createdAt'>): string => Buffer.from(`${r.id};${r.createdAt}`).toString('base64');

export function listStaged(
  state: StoreState,
  app: string,
  limit: number,
  status: BulkImportStatus | undefined,
  token: string | undefined,
): { users: BulkImportRecord[]; next?: string } {
  const from = token === undefined ? undefined : parseToken(token);
  const rows: BulkImportRecord[] = [];
  for (const r of state.maps.bulkImport.values()) {
    if (r.app !== app || (status !== undefined && r.status !== status)) continue;
    if (from && !(r.createdAt < from.createdAt || (r.createdAt === from.createdAt && r.id <= from.id))) continue;
    rows.push(r);
  }
  rows.sort(byNewest);
  if (rows.length <= limit) return { users: rows };
  return { users: rows.slice(0, limit), next: tokenOf(rows[limit]!) };
}

export function countStaged(state: StoreState, app: string, status: BulkImportStatus | undefined): number {
  let n = 0;
  for (const r of state.maps.bulkImport.values()) if (r.app === app && (status === undefined || r.status === status)) n++;
  return n;
}
