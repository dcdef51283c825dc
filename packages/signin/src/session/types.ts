// Types of session migration (exchangeLegacySession): how an old provider's tokens are trusted (IssuerConfig),
// the options of an exchange, and its result.
import type { KeyLike } from 'jose';
import type { SessionContainer } from 'supertokens-node/recipe/session';

/** One old provider whose tokens are exchanged. Exactly one of jwksUri, publicKey and secret. */
export interface IssuerConfig {
  /** The token's `iss`, compared exactly. */
  issuer: string;
  /** Accepted `aud` value(s). Required unless `noAudience`, `authorizedParties` or `claims` say otherwise. */
  audience?: string | string[];
  /** The issuer's JWKS URL (asymmetric keys; fetched and cached by jose). */
  jwksUri?: string;
  /** A PEM public key (SPKI) or a key object. */
  publicKey?: string | KeyLike;
  /** An HS256 shared secret (Supabase's legacy JWT secret, for example). */
  secret?: string;
  /** Accepted `alg` values; default RS256 for keys and JWKS, HS256 for a secret. */
  algorithms?: string[];
  /** The provider's tokens carry no audience and the issuer alone names this app (a Clerk instance). */
  noAudience?: boolean;
  /** Accepted `azp` values (Clerk puts the frontend's origin there). */
  authorizedParties?: string[];
  /** Claims that must hold exactly this value (or one of these), e.g. Cognito's `token_use`. */
  claims?: Record<string, string | string[]>;
  /** A name for results and events; default the issuer. */
  name?: string;
}

export interface ExchangeOptions {
  issuers: IssuerConfig[];
  /** The tenant the session is made on, and where users are looked up; default `public`. */
  tenantId?: string;
  /** Seconds of clock skew allowed on exp, nbf and iat; default 5. */
  clockToleranceSec?: number;
  /** Custom claims put in the new access token (the app's own, as in Session.createNewSession). */
  accessTokenPayload?: Record<string, unknown>;
  sessionDataInDatabase?: Record<string, unknown>;
  userContext?: Record<string, unknown>;
}

export type ExchangeFailure = { status: 'INVALID_TOKEN' | 'UNKNOWN_USER' | 'REPLAYED'; reason: string };

/** How the subject was matched: the external id the run kept, or the verified email. */
export type MatchedBy = 'external-id' | 'verified-email';

export interface SessionTokens {
  accessToken: string;
  refreshToken: string | undefined;
  antiCsrfToken: string | undefined;
  frontToken: string;
}

export type ExchangeResult =
  | {
      status: 'OK';
      userId: string;
      recipeUserId: string;
      matchedBy: MatchedBy;
      issuer: string;
      session: SessionContainer;
      tokens: SessionTokens;
    }
  | ExchangeFailure;
