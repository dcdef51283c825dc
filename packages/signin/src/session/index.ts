// Session migration for apps on supertokens-node: exchange a valid token of the old provider (Firebase, Auth0,
// Cognito, Clerk, Supabase, Keycloak or any JWT issuer) for a session of the migrated user, once. See
// docs/session-migration.md. Needs the Session and UserRoles recipes initialised (used tokens are kept as roles).
export { exchangeLegacySession, prepareExchange, type Prepared } from './exchange.js';
export { legacySessionExchangeHandler, tokenFromRequest } from './express.js';
export { auth0Issuer, clerkIssuer, cognitoIssuer, firebaseIssuer, keycloakIssuer, supabaseIssuer } from './presets.js';
export { EXCHANGED_ROLE_PREFIX, exchangedRole } from './replay.js';
export type { ExchangeFailure, ExchangeOptions, ExchangeResult, IssuerConfig, MatchedBy, SessionTokens } from './types.js';
