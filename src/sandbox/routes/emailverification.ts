// Email verification (the reference core's emailverification recipe): create a token for (user id, email),
// consume it to mark the email verified, ask whether it is verified, unverify, revoke tokens. The user id is
// taken as given (supertokens or external id), as the reference core does; the user object's `verified`
// reads the same `verified` collection under either id (users.ts).
import { createHash, randomBytes } from 'node:crypto';
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
import { badRequest, HttpError, ok, query, status, str } from '../http.js';
import { evTokenOwner, key, type Change } from '../store/index.js';
import { markVerified, normaliseEmail } from '../users.js';

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Exactly the (app, user id, email) row the reference core's isEmailVerified reads: no id translation. */
const isVerifiedAs = (ctx: Ctx, userId: string, email: string): boolean => ctx.state.maps.verified.has(key(ctx.app, userId, email));

/** Deletions of every token of (tenant, user id, email). */
function dropTokens(ctx: Ctx, userId: string, email: string): Change[] {
  const owner = evTokenOwner({ app: ctx.app, tenant: ctx.tenant, userId, email });
  return [...ctx.state.evTokensByUser.get(owner)].map((k) => ({ c: 'evTokens', k }) as Change);
}

/** POST /recipe/user/email/verify/token (tenant-specific). The user need not exist. */
function createToken(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const email = normaliseEmail(str(body, 'email'));
  if (isVerifiedAs(ctx, userId, email)) return status('EMAIL_ALREADY_VERIFIED_ERROR');
  // 48 random bytes, base64url; only the hash is kept, so the store never holds a usable token.
  const token = randomBytes(48).toString('base64url');
  const tokenHash = hashToken(token);
  const record = {
    app: ctx.app,
    tenant: ctx.tenant,
    userId,
    email,
    tokenHash,
    expiresAt: ctx.now + ctx.config.emailVerificationTokenLifetimeMs,
  };
  return commitThen(ctx, [{ c: 'evTokens', k: key(ctx.app, ctx.tenant, tokenHash), v: record }], () => ok({ token }));
}

/** POST /recipe/user/email/verify (tenant-specific): single use; every token of that user and email goes with it. */
function consumeToken(ctx: Ctx) {
  const body = ctx.body();
  const method = str(body, 'method');
  const token = str(body, 'token');
  if (method !== 'token') throw badRequest('Unsupported method for email verification');
  const found = ctx.state.maps.evTokens.get(key(ctx.app, ctx.tenant, hashToken(token)));
  if (!found) return status('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR');
  const changes = dropTokens(ctx, found.userId, found.email);
  // An expired token is still spent (the reference core commits the deletion before answering).
  if (found.expiresAt < ctx.now) return commitThen(ctx, changes, () => status('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR'));
  changes.push(...markVerified(ctx, found.userId, found.email));
  return commitThen(ctx, changes, () => ok({ userId: found.userId, email: found.email }));
}

/** GET /recipe/user/email/verify?userId=&email= (app-specific). The reference core does not normalise this email. */
function isVerified(ctx: Ctx) {
  // The POST on this path is tenant-specific, the GET app-specific: the route's scope cannot say both.
  if (ctx.tenant !== 'public' && atLeast(ctx, '5.0')) throw new HttpError(403, 'Only public tenantId can call this app specific API');
  const userId = query(ctx.query, 'userId');
  const email = query(ctx.query, 'email');
  return ok({ isVerified: isVerifiedAs(ctx, userId, email) });
}

/** POST /recipe/user/email/verify/remove (app-specific). */
function unverify(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const email = normaliseEmail(str(body, 'email'));
  const k = key(ctx.app, userId, email);
  if (!ctx.state.maps.verified.has(k)) return ok();
  return commitThen(ctx, [{ c: 'verified', k }], () => ok());
}

/** POST /recipe/user/email/verify/token/remove (tenant-specific). */
function revokeTokens(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const email = normaliseEmail(str(body, 'email'));
  const changes = dropTokens(ctx, userId, email);
  return changes.length === 0 ? ok() : commitThen(ctx, changes, () => ok());
}

export const emailVerificationRoutes: Route[] = [
  { path: '/recipe/user/email/verify/token', scope: 'tenant', methods: { POST: createToken } },
  { path: '/recipe/user/email/verify', scope: 'tenant', methods: { POST: consumeToken, GET: isVerified } },
  { path: '/recipe/user/email/verify/remove', scope: 'app', methods: { POST: unverify } },
  { path: '/recipe/user/email/verify/token/remove', scope: 'tenant', methods: { POST: revokeTokens } },
];
