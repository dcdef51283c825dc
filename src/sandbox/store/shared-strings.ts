// Strings that repeat across the store's records, held once: app, recipe, tenant and provider ids, device names,
// and the user ids and emails that verified emails and TOTP devices repeat from their login method.
import type { LoginMethod, TotpDevices, Verification } from './records.js';

/**
 * Strings that repeat across millions of login methods (app, recipe, tenant ids, provider ids) and whole tenant
 * lists, shared instead of held once per record. Records are never mutated in place, so sharing is safe.
 */
const strings = new Map<string, string>();
const tenantLists = new Map<string, string[]>();
const INTERN_LIMIT = 100_000;

export function intern(s: string): string {
  const had = strings.get(s);
  if (had !== undefined) return had;
  if (strings.size < INTERN_LIMIT) strings.set(s, s);
  return s;
}

/** Shares the login method's repeated strings; returns the key to store it under (its own id when equal). */
export function internUser(u: LoginMethod, k: string, users: Map<string, LoginMethod>): string {
  u.app = intern(u.app);
  u.recipeId = intern(u.recipeId) as LoginMethod['recipeId'];
  const t = u.tenantIds;
  const tk = t.length === 1 ? t[0]! : t.join('\u0000');
  let list = tenantLists.get(tk);
  if (!list && tenantLists.size < INTERN_LIMIT) {
    list = t.map(intern);
    tenantLists.set(tk, list);
  }
  if (list && list.length === t.length) u.tenantIds = list;
  if (u.thirdParty) u.thirdParty = { id: intern(u.thirdParty.id), userId: u.thirdParty.userId };
  // The record's id and its key are one string (hashed once) when equal.
  if (u.id === k) u.id = k;
  // A linked method's primary id is the primary's own id string (one copy per group, not one per method).
  if (u.primaryUserId !== undefined)
    u.primaryUserId = u.primaryUserId === u.id ? u.id : (users.get(u.primaryUserId)?.id ?? u.primaryUserId);
  return k;
}

/** A user's TOTP devices share the app, the user id of its login method and the device names. */
export function internTotp(t: TotpDevices, users: Map<string, LoginMethod>): void {
  t.app = intern(t.app);
  t.userId = users.get(t.userId)?.id ?? t.userId;
  for (const d of t.devices) d.name = intern(d.name);
}

/** A verified email shares the app, user id and email strings of its login method when it has one. */
export function internVerified(v: Verification, users: Map<string, LoginMethod>): void {
  v.app = intern(v.app);
  const u = users.get(v.userId);
  if (!u) return;
  v.userId = u.id;
  if (u.email === v.email) v.email = u.email;
}
