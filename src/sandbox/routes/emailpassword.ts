// Email-password recipe: password-hash import, sign-in (really verifies the hash), sign-up, and the
// email-password flavour of PUT /recipe/user (core-api.md §3.7, §4.1).
import bcrypt from 'bcryptjs';
import { detectAlgorithm, isArgon2Prefix, isBcryptPrefix, parseExternalScrypt, parseHashingAlgorithmName } from '../../hashes/formats.js';
import { verifyPassword } from '../../hashes/verify.js';
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
import { HttpError, badRequest, ok, status, str } from '../http.js';
import { findConflict } from '../linking.js';
import { key, type LoginMethod } from '../store/index.js';
import { requireLoginMethod } from '../tenants.js';
import {
  externalId,
  findLoginMethod,
  isFakeEmail,
  markVerified,
  newUserId,
  normaliseEmail,
  primaryOf,
  putUser,
  userJson,
} from '../users.js';

export const MISSING_SIGNER_KEY = "java.lang.IllegalStateException: 'firebase_password_hashing_signer_key' cannot be null";

function requireSignerKey(ctx: Ctx): void {
  if (!ctx.config.signerKey) throw new HttpError(500, MISSING_SIGNER_KEY);
}

/** PasswordHashingUtils.assertSuperTokensSupportInputPasswordHashFormat: loose prefix checks. */
function assertHashFormat(ctx: Ctx, hash: string, algorithm: ReturnType<typeof parseHashingAlgorithmName>): void {
  if (algorithm === null) {
    if (parseExternalScrypt(hash)) return requireSignerKey(ctx);
    if (isBcryptPrefix(hash) || isArgon2Prefix(hash)) return;
    throw badRequest('Password hash is in invalid format');
  }
  if (algorithm === 'bcrypt' && !isBcryptPrefix(hash)) throw badRequest('Password hash is in invalid BCrypt format');
  if (algorithm === 'argon2' && !isArgon2Prefix(hash)) throw badRequest('Password hash is in invalid Argon2 format');
  if (algorithm === 'external_scrypt') {
    requireSignerKey(ctx);
    if (!parseExternalScrypt(hash)) throw badRequest('Password hash is in invalid Firebase SCrypt format');
  }
}

const epUser = (ctx: Ctx, email: string): LoginMethod | undefined => {
  const id = ctx.state.epByEmail.get(key(ctx.app, ctx.tenant, email));
  return id ? ctx.state.maps.users.get(id) : undefined;
};

function newEmailPasswordUser(ctx: Ctx, email: string, passwordHash: string) {
  const u: LoginMethod = {
    app: ctx.app,
    id: newUserId(),
    recipeId: 'emailpassword',
    tenantIds: [ctx.tenant],
    timeJoined: ctx.now,
    email,
    passwordHash,
  };
  return { user: u, changes: [putUser(u), ...(isFakeEmail(email) ? markVerified(ctx, u.id, email) : [])] };
}

async function importHash(ctx: Ctx) {
  const body = ctx.body();
  const rawEmail = str(body, 'email');
  const rawHash = str(body, 'passwordHash');
  const algName = str(body, 'hashingAlgorithm', true);
  const passwordHash = rawHash.trim();
  if (passwordHash === '') throw badRequest('Password hash cannot be an empty string');
  let algorithm: ReturnType<typeof parseHashingAlgorithmName> = null;
  if (algName !== undefined) {
    if (algName.trim() === '') throw badRequest('Hashing Algorithm cannot be an empty string');
    algorithm = parseHashingAlgorithmName(algName);
    if (algorithm === null) throw badRequest('Unsupported password hashing algorithm');
  }
  const email = normaliseEmail(rawEmail);
  requireLoginMethod(ctx, 'emailpassword');
  assertHashFormat(ctx, passwordHash, algorithm);
  const existing = epUser(ctx, email);
  if (existing) {
    // The answer shows the user as it was before the hash was replaced.
    const before = userJson(ctx, existing);
    return commitThen(ctx, [putUser({ ...existing, passwordHash })], () => ok({ user: before, didUserAlreadyExist: true }));
  }
  const { user, changes } = newEmailPasswordUser(ctx, email, passwordHash);
  return commitThen(ctx, changes, () => ok({ user: userJson(ctx, user), didUserAlreadyExist: false }));
}

async function signIn(ctx: Ctx) {
  const body = ctx.body();
  const email = normaliseEmail(str(body, 'email'));
  const password = str(body, 'password');
  requireLoginMethod(ctx, 'emailpassword');
  const u = epUser(ctx, email);
  if (!u?.passwordHash) return status('WRONG_CREDENTIALS_ERROR');
  if (detectAlgorithm(u.passwordHash) === 'external_scrypt') requireSignerKey(ctx);
  const outcome = await verifyPassword(u.passwordHash, password, { signerKey: ctx.config.signerKey });
  if (outcome.result === 'missing-signer-key') throw new HttpError(500, MISSING_SIGNER_KEY);
  if (outcome.result !== 'match') return status('WRONG_CREDENTIALS_ERROR');
  // Re-read: the user may have been linked while the hash was being checked.
  const now = ctx.state.maps.users.get(u.id) ?? u;
  const reply: Record<string, unknown> = { user: userJson(ctx, now) };
  if (atLeast(ctx, '4.0')) reply.recipeUserId = externalId(ctx, now.id);
  return ok(reply);
}

async function signUp(ctx: Ctx) {
  const body = ctx.body();
  const email = normaliseEmail(str(body, 'email'));
  const password = str(body, 'password');
  requireLoginMethod(ctx, 'emailpassword');
  if (epUser(ctx, email)) return status('EMAIL_ALREADY_EXISTS_ERROR');
  const hash = await bcrypt.hash(password, ctx.config.bcryptRounds);
  // Checked again after the await: another sign-up may have taken the email meanwhile.
  if (epUser(ctx, email)) return status('EMAIL_ALREADY_EXISTS_ERROR');
  const { user, changes } = newEmailPasswordUser(ctx, email, hash);
  return commitThen(ctx, changes, () => {
    const reply: Record<string, unknown> = { user: userJson(ctx, user) };
    if (atLeast(ctx, '4.0')) reply.recipeUserId = user.id;
    return ok(reply);
  });
}

/** PUT /recipe/user without `rid: passwordless`: change the email and/or password of an email-password user. */
export async function updateEmailPasswordUser(ctx: Ctx) {
  const body = ctx.body();
  const id = str(body, atLeast(ctx, '4.0') ? 'recipeUserId' : 'userId');
  const rawEmail = str(body, 'email', true);
  const password = str(body, 'password', true);
  if (rawEmail === undefined && password === undefined) throw badRequest('You have to provide either email or password.');
  if (!findLoginMethod(ctx, id)) return status('UNKNOWN_USER_ID_ERROR');
  // Hash first: every check below then runs on the state the change is applied to, with no await between.
  const passwordHash = password !== undefined ? await bcrypt.hash(password, ctx.config.bcryptRounds) : undefined;
  const u = findLoginMethod(ctx, id);
  if (!u || u.recipeId !== 'emailpassword') return status('UNKNOWN_USER_ID_ERROR');
  const next: LoginMethod = { ...u };
  if (passwordHash !== undefined) next.passwordHash = passwordHash;
  if (rawEmail !== undefined) {
    const email = normaliseEmail(rawEmail);
    if (email !== u.email) {
      // The account-linking rule comes first, as on the reference core (EmailPassword.updateUsersEmailOrPassword
      // checks isEmailChangeAllowed before the email is written and meets the duplicate).
      if (u.primaryUserId && findConflict(ctx, { email }, u.tenantIds, primaryOf(ctx, u).id)) {
        return status('EMAIL_CHANGE_NOT_ALLOWED_ERROR', { reason: 'New email is associated with another primary user ID' });
      }
      for (const t of u.tenantIds) {
        if (ctx.state.epByEmail.has(key(ctx.app, t, email))) return status('EMAIL_ALREADY_EXISTS_ERROR');
      }
      next.email = email;
    }
  }
  return commitThen(ctx, [putUser(next)], () => ok());
}

export const emailPasswordRoutes: Route[] = [
  { path: '/recipe/user/passwordhash/import', scope: 'tenant', methods: { POST: importHash } },
  { path: '/recipe/signin', scope: 'tenant', methods: { POST: signIn } },
  { path: '/recipe/signup', scope: 'tenant', methods: { POST: signUp } },
];
