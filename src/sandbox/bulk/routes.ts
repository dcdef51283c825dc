// The bulk-import API of the reference core (webserver/api/bulkimport): ImportUserAPI (one user, synchronously),
// BulkImportAPI (stage <= 10,000 users, the whole batch refused with per-index errors; list them by status),
// CountBulkImportUsersAPI and DeleteBulkImportUserAPI. Errors are 400 texts holding JSON, as there.
// The sandbox is a durable (SQL-like) core, so these APIs are served (the reference refuses them on in-memory storage).
import { commitThen, type Ctx, type Route } from '../context.js';
import { HttpError, badRequest, json, ok, query, queryInt } from '../http.js';
import { key, type BulkImportRecord, type BulkImportStatus, type Change } from '../store/index.js';
import { userJson } from '../users.js';
import { ImportError, hashPlainTextPasswords, importChanges } from './importer.js';
import { parseBulkUser, type BulkUser } from './schema.js';
import { InvalidTokenError, STATUSES, countStaged, listStaged, schemaEnv, stagedJson } from './staging.js';

export const MAX_USERS_TO_ADD = 10_000;
export const GET_USERS_MAX_LIMIT = 500;
export const GET_USERS_DEFAULT_LIMIT = 100;
export const DELETE_USERS_MAX_LIMIT = 500;
/** Staging 10,000 users takes more than the 1 MiB other requests may carry. */
export const BULK_BODY_BYTES = 64 << 20;

const jsonError = (body: unknown): HttpError => badRequest(JSON.stringify(body));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function notAnObject(v: unknown): HttpError {
  return new HttpError(500, `java.lang.IllegalStateException: Not a JSON Object: ${JSON.stringify(v)}`);
}

async function importOne(ctx: Ctx) {
  const parsed = parseBulkUser(schemaEnv(ctx), ctx.body(), 'GENERATE');
  if (!parsed.ok) throw jsonError({ errors: parsed.errors });
  const user = parsed.user;
  await hashPlainTextPasswords(ctx, user);
  let result;
  try {
    result = importChanges(ctx, user);
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    // BulkImportBatchInsertException: the messages as they are; anything else arrives as a StorageQueryException.
    throw jsonError({ errors: [err.perUser ? err.message : `java.lang.Exception: ${err.message}`] });
  }
  return commitThen(ctx, result.changes, () => ok({ user: userJson(ctx, ctx.state.maps.users.get(result.primaryId)!) }));
}

function addUsers(ctx: Ctx) {
  const users = ctx.body().users;
  if (!Array.isArray(users)) throw badRequest("Field name 'users' is invalid in JSON input");
  if (users.length === 0) return ok();
  if (users.length > MAX_USERS_TO_ADD) throw jsonError({ error: `You can only add ${MAX_USERS_TO_ADD} users at a time.` });
  const env = schemaEnv(ctx);
  const errors: Array<{ index: number; errors: string[] }> = [];
  const changes: Change[] = [];
  users.forEach((raw: unknown, index) => {
    if (!isObject(raw)) throw notAnObject(raw);
    const parsed = parseBulkUser(env, raw, 'GENERATE');
    if (!parsed.ok) {
      errors.push({ index, errors: parsed.errors });
      return;
    }
    const record: BulkImportRecord = {
      app: ctx.app,
      id: parsed.user.id,
      status: 'NEW',
      user: parsed.user as unknown as Record<string, unknown>,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    changes.push({ c: 'bulkImport', k: key(ctx.app, record.id), v: record });
  });
  if (errors.length > 0) {
    throw jsonError({ error: 'Data has missing or invalid fields. Please check the users field for more details.', users: errors });
  }
  return commitThen(ctx, changes, () => ok({ users: changes.map((c) => responseJson(c.v as BulkImportRecord)) }));
}

/** BulkImportUser.toResponseJson: what was staged, with the ids the import will give (note `thirdpartyId`). */
function responseJson(r: BulkImportRecord): Record<string, unknown> {
  const user = r.user as unknown as BulkUser;
  return {
    userId: user.externalUserId ?? user.id,
    loginMethods: user.loginMethods.map((m) => {
      const lm: Record<string, unknown> = { recipeId: m.recipeId, userId: m.externalUserId ?? m.superTokensUserId, tenants: m.tenantIds };
      if (m.email !== undefined) lm.email = m.email;
      if (m.recipeId === 'thirdparty') Object.assign(lm, { thirdpartyId: m.thirdPartyId, thirdpartyUserId: m.thirdPartyUserId });
      if (m.phoneNumber !== undefined) lm.phoneNumber = m.phoneNumber;
      return lm;
    }),
  };
}

function statusParam(ctx: Ctx): BulkImportStatus | undefined {
  const raw = query(ctx.query, 'status', true);
  if (raw === undefined) return undefined;
  if (!STATUSES.includes(raw as BulkImportStatus)) throw badRequest('Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!');
  return raw as BulkImportStatus;
}

function getUsers(ctx: Ctx) {
  const token = query(ctx.query, 'paginationToken', true);
  let limit = queryInt(ctx.query, 'limit');
  if (limit !== undefined) {
    if (limit > GET_USERS_MAX_LIMIT) throw badRequest(`Max limit allowed is ${GET_USERS_MAX_LIMIT}`);
    if (limit < 1) throw badRequest('limit must a positive integer with min value 1');
  } else limit = GET_USERS_DEFAULT_LIMIT;
  const status = statusParam(ctx);
  try {
    const page = listStaged(ctx.state, ctx.app, limit, status, token);
    const out: Record<string, unknown> = { status: 'OK', users: page.users.map(stagedJson) };
    if (page.next !== undefined) out.nextPaginationToken = page.next;
    return json(out);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw badRequest('invalid pagination token');
    throw err;
  }
}

function countUsers(ctx: Ctx) {
  return ok({ count: countStaged(ctx.state, ctx.app, statusParam(ctx)) });
}

function removeUsers(ctx: Ctx) {
  const ids = ctx.body().ids;
  if (!Array.isArray(ids)) throw badRequest("Field name 'ids' is invalid in JSON input");
  if (ids.length === 0) return json({ deletedIds: [], invalidIds: [] });
  if (ids.length > DELETE_USERS_MAX_LIMIT) throw badRequest(`Field name 'ids' cannot contain more than ${DELETE_USERS_MAX_LIMIT} elements`);
  for (const id of ids) {
    if (typeof id !== 'string') throw badRequest("Field name 'ids' is invalid in JSON input");
    if (id === '') throw badRequest("Field name 'ids' cannot contain an empty string");
  }
  const present = new Set((ids as string[]).filter((id) => ctx.state.maps.bulkImport.get(key(ctx.app, id))?.app === ctx.app));
  const changes: Change[] = [...present].map((id) => ({ c: 'bulkImport', k: key(ctx.app, id) }));
  const deletedIds = (ids as string[]).filter((id) => present.has(id));
  const invalidIds = (ids as string[]).filter((id) => !present.has(id));
  return commitThen(ctx, changes, () => json({ deletedIds, invalidIds }));
}

export const bulkImportRoutes: Route[] = [
  { path: '/bulk-import/import', scope: 'app', methods: { POST: importOne } },
  { path: '/bulk-import/users', scope: 'app', maxBodyBytes: BULK_BODY_BYTES, methods: { POST: addUsers, GET: getUsers } },
  { path: '/bulk-import/users/count', scope: 'app', methods: { GET: countUsers } },
  { path: '/bulk-import/users/remove', scope: 'app', methods: { POST: removeUsers } },
];
