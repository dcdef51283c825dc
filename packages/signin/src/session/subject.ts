// Finds the migrated user a verified token names: the external id the migration kept (the core's user id mapping,
// GET /recipe/userid/map?userIdType=EXTERNAL) equal to the token's `sub`, else an `email` the old provider marked
// verified (`email_verified: true`), looked up in the tenant (GET /users/by-accountinfo). An email shared by several
// users matches none: the exchange refuses rather than guess.
import supertokens from 'supertokens-node';
import type { JWTPayload } from 'jose';
import type { MatchedBy } from './types.js';

export type Match = { ok: true; userId: string; recipeUserId: string; matchedBy: MatchedBy } | { ok: false; reason: string };

type UserContext = Record<string, unknown> | undefined;

async function byExternalId(sub: string, tenantId: string, userContext: UserContext): Promise<Match | undefined> {
  const mapping = await supertokens.getUserIdMapping({ userId: sub, userIdType: 'EXTERNAL', userContext });
  if (mapping.status !== 'OK') return undefined;
  const user = await supertokens.getUser(mapping.externalUserId, userContext);
  const method = user?.loginMethods.find((m) => m.recipeUserId.getAsString() === mapping.externalUserId);
  if (!user || !method) return { ok: false, reason: 'the subject is mapped to a user that no longer exists' };
  if (!method.tenantIds.includes(tenantId)) return { ok: false, reason: 'the user is not in this tenant' };
  return { ok: true, userId: user.id, recipeUserId: mapping.externalUserId, matchedBy: 'external-id' };
}

async function byVerifiedEmail(email: string, tenantId: string, userContext: UserContext): Promise<Match> {
  const users = await supertokens.listUsersByAccountInfo(tenantId, { email }, false, userContext);
  const holders = users
    .map((user) => ({ user, methods: user.loginMethods.filter((m) => m.hasSameEmailAs(email) && m.tenantIds.includes(tenantId)) }))
    .filter((h) => h.methods.length > 0);
  if (holders.length === 0) return { ok: false, reason: 'no user has the subject as external id or the verified email' };
  if (holders.length > 1) return { ok: false, reason: 'several users have this email; none is chosen' };
  const { user, methods } = holders[0]!;
  const method = methods.find((m) => m.verified) ?? methods[0]!;
  return { ok: true, userId: user.id, recipeUserId: method.recipeUserId.getAsString(), matchedBy: 'verified-email' };
}

export async function findMigratedUser(claims: JWTPayload, tenantId: string, userContext: UserContext): Promise<Match> {
  const mapped = await byExternalId(claims.sub!, tenantId, userContext);
  if (mapped) return mapped;
  if (typeof claims.email === 'string' && claims.email !== '' && claims.email_verified === true) {
    return byVerifiedEmail(claims.email, tenantId, userContext);
  }
  return { ok: false, reason: 'no user has the subject as external id, and the token has no verified email' };
}
