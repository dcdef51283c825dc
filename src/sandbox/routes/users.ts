// Reading users back: GET /user/id (by supertokens or external id, primary user for linked ids) and
// GET /users with the reference core's order and pagination token (core-api.md §4.5, §4.6), and its dashboard
// search (`email`, `phone`, `provider`: see ../search.ts).
import { atLeast, type Ctx, type Route } from '../context.js';
import { HttpError, badRequest, ok, query, queryInt, status } from '../http.js';
import type { LoginMethod } from '../store/index.js';
import { parseSearchTags, searchUsers } from '../search.js';
import { findUser, userJson } from '../users.js';

const RECIPES = new Set(['emailpassword', 'thirdparty', 'passwordless', 'webauthn']);
type Entry = { t: number; id: string };

function getUserById(ctx: Ctx) {
  const u = findUser(ctx, query(ctx.query, 'userId'));
  return u ? ok({ user: userJson(ctx, u) }) : status('UNKNOWN_USER_ID_ERROR');
}

function recipeFilter(ctx: Ctx): Set<string> | undefined {
  const raw = query(ctx.query, 'includeRecipeIds', true);
  if (raw === undefined || raw.trim() === '') return undefined;
  const ids = raw.split(',').map((s) => s.trim());
  for (const id of ids) if (!RECIPES.has(id)) throw badRequest(`Unknown recipe ID: ${id}`);
  return new Set(ids);
}

/** Does the user (its whole group) belong to the request's tenant and match the recipe filter? */
function listed(ctx: Ctx, u: LoginMethod | undefined, recipes: Set<string> | undefined): u is LoginMethod {
  if (!u) return false;
  const group = ctx.state.group(u);
  return group.some((m) => m.tenantIds.includes(ctx.tenant)) && (!recipes || group.some((m) => recipes.has(m.recipeId)));
}

const cmpAsc = (a: Entry, b: Entry): number => a.t - b.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const cmpDesc = (a: Entry, b: Entry): number => b.t - a.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

const descCache = new WeakMap<Entry[], { length: number; entries: Entry[] }>();
function descending(asc: Entry[]): Entry[] {
  const cached = descCache.get(asc);
  if (cached && cached.length === asc.length) return cached.entries;
  const entries = [...asc].sort(cmpDesc);
  descCache.set(asc, { length: asc.length, entries });
  return entries;
}

/** First index whose entry is not before `probe`. */
function lowerBound(entries: Entry[], probe: Entry, cmp: (a: Entry, b: Entry) => number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(entries[mid]!, probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function parseToken(token: string): Entry {
  const text = Buffer.from(token, 'base64').toString('utf8');
  const m = /^(.+);(-?\d+)$/.exec(text);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(token) || !m) throw badRequest('invalid pagination token');
  return { id: m[1]!, t: Number(m[2]) };
}

function getUsers(ctx: Ctx) {
  const recipes = recipeFilter(ctx);
  const limit = queryInt(ctx.query, 'limit') ?? 100;
  const order = query(ctx.query, 'timeJoinedOrder', true) ?? 'ASC';
  if (order !== 'ASC' && order !== 'DESC') throw badRequest('timeJoinedOrder can be either ASC OR DESC');
  const tags = parseSearchTags(ctx.query);
  if (limit > 500 && !tags) throw badRequest('max limit allowed is 500');
  if (limit < 1) throw badRequest('limit must a positive integer with min value 1');
  const token = query(ctx.query, 'paginationToken', true);
  if (tags) {
    // As the reference: a token must still parse, but the search ignores it, the limit and
    // includeRecipeIds, and returns every match (per recipe at most 1000) with no next token.
    if (token !== undefined) parseToken(token);
    return usersReply(ctx, searchUsers(ctx, tags, order), undefined);
  }
  const asc = ctx.state.orderedUsers(ctx.app);
  const entries = order === 'ASC' ? asc : descending(asc);
  const cmp = order === 'ASC' ? cmpAsc : cmpDesc;
  let i = token !== undefined ? lowerBound(entries, parseToken(token), cmp) : 0;
  const page: LoginMethod[] = [];
  let next: Entry | undefined;
  for (; i < entries.length; i++) {
    const u = ctx.state.maps.users.get(entries[i]!.id);
    if (!listed(ctx, u, recipes)) continue;
    if (page.length === limit) {
      next = entries[i];
      break;
    }
    page.push(u);
  }
  return usersReply(ctx, page, next);
}

function usersReply(ctx: Ctx, page: LoginMethod[], next: Entry | undefined) {
  const users = atLeast(ctx, '4.0')
    ? page.map((u) => userJson(ctx, u))
    : page.map((u) => ({ recipeId: u.recipeId, user: userJson(ctx, u) }));
  const reply: Record<string, unknown> = { users };
  if (next) reply.nextPaginationToken = Buffer.from(`${next.id};${next.t}`).toString('base64');
  return ok(reply);
}

/** GET /users/count (UsersCountAPI, AuthRecipe.getUsersCount): the tenant's users, or with includeAllTenants the app's. */
function countUsers(ctx: Ctx) {
  const recipes = recipeFilter(ctx);
  const allTenants = query(ctx.query, 'includeAllTenants', true)?.toLowerCase() === 'true';
  if (allTenants && ctx.tenant !== 'public') throw new HttpError(403, 'Only public tenantId can query across tenants');
  let count = 0;
  for (const e of ctx.state.orderedUsers(ctx.app)) {
    const u = ctx.state.maps.users.get(e.id);
    if (allTenants ? u !== undefined && (!recipes || ctx.state.group(u).some((m) => recipes.has(m.recipeId))) : listed(ctx, u, recipes))
      count++;
  }
  return ok({ count });
}

export const userRoutes: Route[] = [
  { path: '/user/id', scope: 'app', methods: { GET: getUserById } },
  { path: '/users', scope: 'tenant', methods: { GET: getUsers } },
  { path: '/users/count', scope: 'tenant', methods: { GET: countUsers } },
];
