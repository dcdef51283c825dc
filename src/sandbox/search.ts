// The dashboard search of GET /users (`email`, `phone`, `provider`), as the reference core's
// DashboardSearchTags and GeneralQueries.getUsers answer it, from the sorted indexes (no scan of the users).
import type { Ctx } from './context.js';
import type { LoginMethod } from './store/index.js';
import type { PrefixIndex } from './store/prefix-index.js';
import { emailDomains, type SearchKind } from './store/search-index.js';
import { primaryOf } from './users.js';

export interface SearchTags {
  emails?: string[];
  phones?: string[];
  providers?: string[];
}

/** The reference core reads at most this many matching login methods per recipe (`LIMIT 1000` per table). */
export const PER_RECIPE_CAP = 1000;

/** `a;B; ;c` -> ['a','b','c'] (lower-cased, trimmed, empties dropped); undefined when nothing is left. */
function tagList(params: URLSearchParams, name: string): string[] | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const list = raw
    .split(';')
    .map((s) => s.toLowerCase().trim())
    .filter((s) => s.length > 0);
  return list.length > 0 ? list : undefined;
}

/** The search tags of a /users query, or undefined when it is a plain listing. */
export function parseSearchTags(params: URLSearchParams): SearchTags | undefined {
  const tags: SearchTags = { emails: tagList(params, 'email'), phones: tagList(params, 'phone'), providers: tagList(params, 'provider') };
  return tags.emails || tags.phones || tags.providers ? tags : undefined;
}

/** Does an email (lower-cased) start with one of the tags, or does the text after one of its '@' do so? */
const emailMatches = (email: string | undefined, tags: string[]): boolean => {
  if (!email) return false;
  const e = email.toLowerCase();
  const parts = [e, ...emailDomains(e)];
  return tags.some((t) => parts.some((p) => p.startsWith(t)));
};
const prefixMatches = (value: string | undefined, tags: string[]): boolean =>
  value !== undefined && tags.some((t) => value.toLowerCase().startsWith(t));

/** One side of a recipe's condition: which index kinds and tags select login methods, and the direct check. */
interface Side {
  kinds: SearchKind[];
  tags: string[];
  check: (u: LoginMethod) => boolean;
}

const emailSide = (tags: string[]): Side => ({ kinds: ['e', 'd'], tags, check: (u) => emailMatches(u.email, tags) });

/** The recipes the reference searches for this combination of tags, each with the conditions ANDed. */
function plan(tags: SearchTags): Array<{ recipeId: string; sides: Side[] }> {
  const { emails, phones, providers } = tags;
  if (emails && !phones && !providers) {
    return ['emailpassword', 'thirdparty', 'passwordless', 'webauthn'].map((recipeId) => ({ recipeId, sides: [emailSide(emails)] }));
  }
  if (providers && !phones) {
    const side: Side = { kinds: ['t'], tags: providers, check: (u) => prefixMatches(u.thirdParty?.id, providers) };
    return [{ recipeId: 'thirdparty', sides: emails ? [side, emailSide(emails)] : [side] }];
  }
  if (phones && !providers) {
    const side: Side = { kinds: ['p'], tags: phones, check: (u) => prefixMatches(u.phoneNumber, phones) };
    return [{ recipeId: 'passwordless', sides: emails ? [side, emailSide(emails)] : [side] }];
  }
  return []; // phone with provider: no table holds both, so the reference finds nobody
}

/** Login method ids of one recipe in the tenant matching every side, at most PER_RECIPE_CAP of them. */
function matchRecipe(ctx: Ctx, recipeId: string, sides: Side[]): Set<string> {
  const found = new Set<string>();
  const indexOf = (kind: SearchKind): PrefixIndex | undefined => ctx.state.search.get(ctx.app, ctx.tenant, recipeId, kind);
  // Walk the side whose ranges are smallest and check the others on each login method.
  const cost = (s: Side): number => s.tags.reduce((n, t) => n + s.kinds.reduce((m, k) => m + (indexOf(k)?.estimate(t) ?? 0), 0), 0);
  const [walk, ...rest] = sides.length > 1 ? [...sides].sort((a, b) => cost(a) - cost(b)) : sides;
  if (!walk) return found;
  for (const kind of walk.kinds) {
    const idx = indexOf(kind);
    if (!idx) continue;
    for (const tag of walk.tags) {
      idx.forEachPrefixed(tag, (id) => {
        if (found.has(id)) return true;
        if (rest.length > 0) {
          const u = ctx.state.maps.users.get(id);
          if (!u || !rest.every((s) => s.check(u))) return true;
        }
        found.add(id);
        return found.size < PER_RECIPE_CAP;
      });
      if (found.size >= PER_RECIPE_CAP) return found;
    }
  }
  return found;
}

/**
 * The users the search finds in the request's tenant: each matching login method's primary user once (a
 * linked group appears once), ordered by the group's timeJoined (ASC or DESC) then user id DESC, as /users.
 */
export function searchUsers(ctx: Ctx, tags: SearchTags, order: 'ASC' | 'DESC'): LoginMethod[] {
  const top = new Map<string, { u: LoginMethod; t: number }>();
  for (const { recipeId, sides } of plan(tags)) {
    for (const id of matchRecipe(ctx, recipeId, sides)) {
      const m = ctx.state.maps.users.get(id);
      if (!m) continue;
      const p = primaryOf(ctx, m);
      if (!top.has(p.id)) top.set(p.id, { u: p, t: ctx.state.groupTimeJoined(p) });
    }
  }
  const sign = order === 'ASC' ? 1 : -1;
  return [...top.values()].sort((a, b) => sign * (a.t - b.t) || (a.u.id < b.u.id ? 1 : a.u.id > b.u.id ? -1 : 0)).map((e) => e.u);
}
