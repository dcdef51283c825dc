// Users as the reference core shows them: id resolution (external ids through the mapping), the user
// object of core-api.md §2 (key order, omitted optionals, `verified` rules) and normalisation.
import { randomUUID } from 'node:crypto';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import { atLeast, type Ctx } from './context.js';
import { hashSetOrder, stringSetOrder } from './java-order.js';
import { key, type Change, type LoginMethod } from './store/index.js';

export const newUserId = (): string => randomUUID();

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/**
 * The reference core's `Utils.normalizeIfPhoneNumber`: parsed by libphonenumber with no default region and
 * formatted E.164, or just trimmed when it does not parse. libphonenumber-js is the JavaScript port.
 */
export function normalisePhone(phone: string): string {
  const t = phone.trim();
  try {
    return parsePhoneNumberWithError(t).number;
  } catch {
    return t;
  }
}

export const isFakeEmail = (email: string): boolean => email.endsWith('@stfakeemail.supertokens.com') || email.endsWith('.fakeemail.com');

/** The external id of a supertokens id, or the id itself. */
export function externalId(ctx: Ctx, id: string): string {
  return ctx.state.maps.mappings.get(key(ctx.app, id))?.externalUserId ?? id;
}

/** AuthRecipeStorage.doesUserIdExist: a supertokens user id of this app (never an external id). */
export function userExists(ctx: Pick<Ctx, 'app' | 'state'>, id: string): boolean {
  return ctx.state.maps.users.get(id)?.app === ctx.app;
}

/**
 * The user an id names, as StorageLayer.findStorageAndUserIdMappingForUser(..., ANY) resolves it: a supertokens
 * id of this app first, then an external id through its mapping. A ghost primary (records.ts) is found while
 * login methods are linked to it (AuthRecipe.getPrimaryUserById finds their group), not after.
 */
export function findUser(ctx: Ctx, id: string): LoginMethod | undefined {
  const st = userExists(ctx, id) ? id : (ctx.state.externalToSt.get(key(ctx.app, id)) ?? id);
  const u = ctx.state.maps.users.get(st);
  if (!u || u.app !== ctx.app) return undefined;
  return u.ghost && ctx.state.group(u).length === 0 ? undefined : u;
}

/** A login method itself by supertokens or external id (never a ghost primary): what a recipe's update changes. */
export function findLoginMethod(ctx: Ctx, id: string): LoginMethod | undefined {
  const u = findUser(ctx, id);
  return u?.ghost ? undefined : u;
}

/** The primary user's login method when linked, else the method itself. */
export function primaryOf(ctx: Ctx, u: LoginMethod): LoginMethod {
  if (!u.primaryUserId || u.primaryUserId === u.id) return u;
  return ctx.state.maps.users.get(u.primaryUserId) ?? u;
}

export function isEmailVerified(ctx: Ctx, u: LoginMethod): boolean {
  if (!u.email) return u.recipeId === 'passwordless';
  const v = ctx.state.maps.verified;
  return v.has(key(ctx.app, u.id, u.email)) || v.has(key(ctx.app, externalId(ctx, u.id), u.email));
}

export function markVerified(ctx: Pick<Ctx, 'app' | 'state'>, userId: string, email: string): Change[] {
  const k = key(ctx.app, userId, email);
  return ctx.state.maps.verified.has(k) ? [] : [{ c: 'verified', k, v: { app: ctx.app, userId, email } }];
}

export const putUser = (u: LoginMethod): Change => ({ c: 'users', k: u.id, v: u });

/** The user object of the request's cdi-version for any login method of the user. */
export function userJson(ctx: Ctx, u: LoginMethod): Record<string, unknown> {
  if (!atLeast(ctx, '4.0')) return legacyUserJson(ctx, u);
  const primary = primaryOf(ctx, u);
  const methods = ctx.state.group(primary).sort((a, b) => a.timeJoined - b.timeJoined);
  // HashSet orders, as the reference's AuthRecipeUserInfo.toJson (java-order.ts).
  const out: Record<string, unknown> = {
    id: externalId(ctx, primary.id),
    isPrimaryUser: primary.primaryUserId === primary.id,
    tenantIds: stringSetOrder(methods.flatMap((m) => stringSetOrder(m.tenantIds))),
    timeJoined: Math.min(...methods.map((m) => m.timeJoined)),
    emails: stringSetOrder(methods.flatMap((m) => (m.email ? [m.email] : []))),
    phoneNumbers: stringSetOrder(methods.flatMap((m) => (m.phoneNumber ? [m.phoneNumber] : []))),
    thirdParty: hashSetOrder(
      methods.flatMap((m) => (m.thirdParty ? [{ id: m.thirdParty.id, userId: m.thirdParty.userId }] : [])),
      (t) => `${t.id}|${t.userId}`,
    ),
  };
  if (atLeast(ctx, '5.3')) out.webauthn = { credentialIds: [] };
  out.loginMethods = methods.map((m) => {
    const lm: Record<string, unknown> = {
      tenantIds: stringSetOrder(m.tenantIds),
      recipeUserId: externalId(ctx, m.id),
      verified: isEmailVerified(ctx, m),
      timeJoined: m.timeJoined,
      recipeId: m.recipeId,
    };
    if (m.email) lm.email = m.email;
    if (m.phoneNumber) lm.phoneNumber = m.phoneNumber;
    if (m.thirdParty) lm.thirdParty = { id: m.thirdParty.id, userId: m.thirdParty.userId };
    return lm;
  });
  return out;
}

/** CDI < 4.0: the flat recipe user (toJsonWithoutAccountLinking). */
function legacyUserJson(ctx: Ctx, u: LoginMethod): Record<string, unknown> {
  const out: Record<string, unknown> = { id: externalId(ctx, u.id), timeJoined: u.timeJoined };
  if (atLeast(ctx, '3.0')) out.tenantIds = stringSetOrder(u.tenantIds);
  if (u.email) out.email = u.email;
  if (u.phoneNumber) out.phoneNumber = u.phoneNumber;
  if (u.thirdParty) out.thirdParty = { id: u.thirdParty.id, userId: u.thirdParty.userId };
  return out;
}
