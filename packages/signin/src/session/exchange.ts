// exchangeLegacySession: a valid token of the old provider, exchanged once for a session of the migrated user.
// Order: verify the token (nothing is written for a token that fails), find the user, claim the token in the core
// (first claim wins across instances), then create the session with the app's Session settings. A session that
// fails to be created after the claim leaves the token used: the user signs in again; it is never exchanged twice.
import supertokens from 'supertokens-node';
import Session from 'supertokens-node/recipe/session';
import { claimToken, exchangedRole } from './replay.js';
import { findMigratedUser } from './subject.js';
import type { ExchangeFailure, ExchangeOptions, ExchangeResult, MatchedBy } from './types.js';
import { checkIssuerConfig, verifyLegacyToken } from './verify.js';

export interface Prepared {
  tenantId: string;
  userId: string;
  recipeUserId: string;
  matchedBy: MatchedBy;
  issuer: string;
}

const DEFAULT_TOLERANCE_SEC = 5;

/** Everything but the session: verified, matched and claimed (or the reason it is refused). */
export async function prepareExchange(token: string, options: ExchangeOptions): Promise<Prepared | ExchangeFailure> {
  if (!options.issuers || options.issuers.length === 0) throw new Error('exchangeLegacySession: give at least one issuer');
  options.issuers.forEach(checkIssuerConfig);
  const tenantId = options.tenantId ?? 'public';
  const verified = await verifyLegacyToken(token, options.issuers, options.clockToleranceSec ?? DEFAULT_TOLERANCE_SEC);
  if (!verified.ok) return { status: 'INVALID_TOKEN', reason: verified.reason };
  const match = await findMigratedUser(verified.claims, tenantId, options.userContext);
  if (!match.ok) return { status: 'UNKNOWN_USER', reason: match.reason };
  const first = await claimToken(exchangedRole(verified.signingInput, verified.claims.exp!), options.userContext);
  if (!first) return { status: 'REPLAYED', reason: 'this token was exchanged before' };
  const { userId, recipeUserId, matchedBy } = match;
  return { tenantId, userId, recipeUserId, matchedBy, issuer: verified.issuer.name ?? verified.issuer.issuer };
}

/** Exchanges `token` for a new session, returned with its tokens (Session.createNewSessionWithoutRequestResponse). */
export async function exchangeLegacySession(token: string, options: ExchangeOptions): Promise<ExchangeResult> {
  const prepared = await prepareExchange(token, options);
  if ('status' in prepared) return prepared;
  const session = await Session.createNewSessionWithoutRequestResponse(
    prepared.tenantId,
    new supertokens.RecipeUserId(prepared.recipeUserId),
    options.accessTokenPayload,
    options.sessionDataInDatabase,
    false,
    options.userContext,
  );
  return {
    status: 'OK',
    userId: session.getUserId(),
    recipeUserId: prepared.recipeUserId,
    matchedBy: prepared.matchedBy,
    issuer: prepared.issuer,
    session,
    tokens: session.getAllSessionTokensDangerously(),
  };
}
