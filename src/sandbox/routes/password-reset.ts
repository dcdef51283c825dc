// Email-password reset tokens (the reference core 11.4.4's GeneratePasswordResetTokenAPI and
// ConsumeResetPasswordAPI, EmailPassword.generatePasswordResetToken / consumeResetPasswordToken): a token for a
// user id (supertokens or external) and email, lifetime one hour; consuming one deletes every token of that user
// in the same transaction (so of two racing consumes one wins), an expired one is deleted and refused, and the
// answer names the external id when mapped. Kept in memory per store: a restart forgets them (the reference keeps
// them in its database; a rehearsal then asks for a new link, never passes where the reference would fail).
import { createHash, randomBytes } from 'node:crypto';
import { atLeast, type Ctx, type Route } from '../context.js';
import { ok, status, str } from '../http.js';
import type { StoreState } from '../store/index.js';
import { requireLoginMethod } from '../tenants.js';
import { externalId, findUser } from '../users.js';

/** `password_reset_token_lifetime` default (CoreConfig): one hour. */
const LIFETIME_MS = 3_600_000;

interface ResetToken {
  userId: string;
  email?: string;
  expiresAt: number;
}

const byState = new WeakMap<StoreState, Map<string, ResetToken>>();
const tokensOf = (ctx: Ctx): Map<string, ResetToken> => byState.get(ctx.state) ?? byState.set(ctx.state, new Map()).get(ctx.state)!;
const hashKey = (ctx: Ctx, token: string): string => `${ctx.app}\u0000${createHash('sha256').update(token).digest('hex')}`;

/** POST /recipe/user/password/reset/token (tenant-specific). */
function createToken(ctx: Ctx) {
  const body = ctx.body();
  const given = str(body, 'userId');
  requireLoginMethod(ctx, 'emailpassword');
  // CDI 4.0+ requires the email (InputParser: 400 when missing); before, the token has none.
  const email = atLeast(ctx, '4.0') ? str(body, 'email') : undefined;
  // The token row references the user (app_id_to_user_id): an unknown id is UNKNOWN_USER_ID_ERROR.
  const user = findUser(ctx, given);
  if (!user) return status('UNKNOWN_USER_ID_ERROR');
  const token = randomBytes(64).toString('base64').replace(/[=/+]/g, '');
  tokensOf(ctx).set(hashKey(ctx, token), { userId: user.id, ...(email !== undefined ? { email } : {}), expiresAt: ctx.now + LIFETIME_MS });
  return ok({ token });
}

/** POST /recipe/user/password/reset/token/consume (tenant-specific; the token is looked up in the app). */
function consumeToken(ctx: Ctx) {
  const token = str(ctx.body(), 'token');
  const tokens = tokensOf(ctx);
  const found = tokens.get(hashKey(ctx, token));
  if (!found) return status('RESET_PASSWORD_INVALID_TOKEN_ERROR');
  // Every token of the user goes, the matched one included (deleteAllPasswordResetTokensForUser_Transaction).
  for (const [k, t] of tokens) if (k.startsWith(`${ctx.app}\u0000`) && t.userId === found.userId) tokens.delete(k);
  if (found.expiresAt < ctx.now) return status('RESET_PASSWORD_INVALID_TOKEN_ERROR');
  let email = found.email;
  if (email === undefined) {
    // A token made before CDI 4.0: the user's only login method must be an email-password one.
    const u = findUser(ctx, found.userId);
    if (!u || u.recipeId !== 'emailpassword' || u.email === undefined) return status('RESET_PASSWORD_INVALID_TOKEN_ERROR');
    email = u.email;
  }
  return ok({ userId: externalId(ctx, found.userId), email });
}

export const passwordResetRoutes: Route[] = [
  { path: '/recipe/user/password/reset/token', scope: 'tenant', methods: { POST: createToken } },
  { path: '/recipe/user/password/reset/token/consume', scope: 'tenant', methods: { POST: consumeToken } },
];
