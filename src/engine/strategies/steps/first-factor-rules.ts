// The step rules of the first factors (the steps that create a recipe user) and of `--update-existing`'s hash
// replacement: how each is sent, found, and completed when found (rules.ts holds the table, execute.ts the
// one exactly-once rule). A first factor not found by its account info, whose user has an external id, is looked
// up by that id too: a user whose email (or phone) changed in the core since the export is the same user, and is
// never created again. (Found by account info while the external id names another user: a conflict the mapping
// step reports.) Without an external id the tool cannot tell such a user from a new one: docs/migration.md §3.
// Invariant: a user found by its external id is the same user, never created again.
import type { CoreClient, CoreUser, LoginMethod } from '../../../core-client/types.js';
import { foreign, isThirdPartyLogin, loginIn, text } from './answer-checks.js';
import { done, fail, type StepOutcome } from './ids.js';
import type { Found, StepRule } from './rules.js';
import type { Step } from '../../plan/steps.js';

type Of<K extends Step['kind']> = Extract<Step, { kind: K }>;
type Match = (lm: LoginMethod) => boolean;

export const norm = (email: string): string => email.trim().toLowerCase();

/** The first user holding a login method that matches, as Found. */
export function methodIn(users: CoreUser[], match: Match): Found {
  for (const u of users) {
    const lm = u.loginMethods.find(match);
    if (lm) return { ids: { recipeUserId: lm.recipeUserId }, method: lm };
  }
  return undefined;
}

/**
 * The user the external id names, if the core has one: with the step's login method (found), or without it (the
 * same user, its account info changed in the core since the export: found, marked changed, never re-created).
 */
async function byExternalId(
  step: { externalUserId?: string },
  core: CoreClient,
  match: Match,
  recipe: LoginMethod['recipeId'],
  what: string,
): Promise<Found> {
  if (step.externalUserId === undefined) return undefined;
  const r = await core.getUserById(step.externalUserId);
  if (r.status !== 'OK') return undefined;
  const lm = r.user.loginMethods.find(match);
  if (lm) return { ids: { recipeUserId: lm.recipeUserId }, method: lm };
  const same = r.user.loginMethods.find((m) => m.recipeId === recipe) ?? r.user.loginMethods[0];
  return {
    ids: { recipeUserId: same?.recipeUserId ?? r.user.id },
    changed: `the core's user ${r.user.id} (external id ${step.externalUserId}) no longer has ${what}: changed in the core since the export, so it is neither created again nor changed back`,
  };
}

const TOKEN = '/recipe/user/email/verify/token';
const VERIFY = '/recipe/user/email/verify';

/**
 * Mark (userId, email) verified with a token the core just made; the token never leaves this function. Neither
 * "already verified" nor an OK naming another user or email is believed: the core is read (issue 31).
 */
export async function markVerified(userId: string, email: string, core: CoreClient): Promise<StepOutcome> {
  const isVerified = async () => (await core.isEmailVerified(userId, email)).isVerified;
  const created = await core.createEmailVerificationToken(userId, email);
  if (created.status === 'EMAIL_ALREADY_VERIFIED_ERROR') {
    if (await isVerified()) return done(false);
    foreign('POST', TOKEN, `"already verified", but ${email} of user ${userId} is not`);
  }
  if (created.status === 'OK' && typeof created.token !== 'string') foreign('POST', TOKEN, 'it holds no token');
  const r = await core.verifyEmailToken(created.token);
  if (r.status === 'OK') {
    if ((text(r, 'userId') === userId && text(r, 'email') === email) || (await isVerified())) return done(true);
    foreign('POST', VERIFY, `it names ${text(r, 'email') ?? 'no email'}, and ${email} of user ${userId} is not verified`);
  }
  // The token this attempt created is spent: only our own consume, applied and retried, spends it.
  if ((await core.isEmailVerified(userId, email)).isVerified) return done(true);
  return fail(r.status, `the core did not accept the email verification token it had just created for ${email} of user ${userId}`);
}

const IMPORT = '/recipe/user/passwordhash/import';

const isPassword = (email: string) => (lm: LoginMethod) => lm.recipeId === 'emailpassword' && lm.email === norm(email);

export const importPassword: StepRule<Of<'import-password'>> = {
  requests: 'POST /recipe/user/passwordhash/import',
  calls: 2, // looked up first
  describe: (step) =>
    `import password hash (${step.hashingAlgorithm}) for ${step.email} unless the user exists: GET /users/by-accountinfo, POST /recipe/user/passwordhash/import`,
  findFirst: () => true,
  async find(step, _ids, core) {
    const match = isPassword(step.email);
    const found = methodIn((await core.listUsersByAccountInfo({ email: norm(step.email) })).users, match);
    return found ?? byExternalId(step, core, match, 'emailpassword', `the email-password login ${norm(step.email)}`);
  },
  async send(step, _ids, core) {
    const r = await core.importPasswordHash({
      email: step.email,
      passwordHash: step.passwordHash,
      hashingAlgorithm: step.hashingAlgorithm,
    });
    const { method } = loginIn(r, isPassword(step.email), { method: 'POST', path: IMPORT, sent: `with the email ${norm(step.email)}` });
    return done(!r.didUserAlreadyExist, { recipeUserId: method.recipeUserId });
  },
};

/** `--update-existing`: the source's hash over the hash of a user that was there before this run (counted). */
export const replacePassword: StepRule<Of<'replace-password'>> = {
  requests: 'POST /recipe/user/passwordhash/import (replacing an existing hash)',
  describe: (step) =>
    `replace the password hash of ${step.email} with the source's (${step.hashingAlgorithm}) if the user was already there: POST /recipe/user/passwordhash/import`,
  async send(step, ids, core) {
    // Not replaced: a user this run created (it has the source's hash), or one whose email changed since. The id
    // is kept either way, so a resumed journal knows this step is done.
    const known = ids.recipe.get(step.user);
    if (ids.changed.has(step.user) || ids.created.has(step.user)) return done(false, known !== undefined ? { recipeUserId: known } : {});
    const r = await core.importPasswordHash({
      email: step.email,
      passwordHash: step.passwordHash,
      hashingAlgorithm: step.hashingAlgorithm,
    });
    const { method } = loginIn(r, isPassword(step.email), { method: 'POST', path: IMPORT, sent: `with the email ${norm(step.email)}` });
    const recipeUserId = method.recipeUserId;
    // created = replaced: the user was there and now has the source's hash.
    return done(r.didUserAlreadyExist, { recipeUserId });
  },
};

export const thirdPartySignInUp: StepRule<Of<'thirdparty-signinup'>> = {
  requests: 'POST /recipe/signinup (third party)',
  calls: 2,
  describe: (step) =>
    `third-party sign-in-up ${step.thirdPartyId}/${step.thirdPartyUserId} (${step.email}) unless the user exists: GET /users/by-accountinfo, POST /recipe/signinup`,
  findFirst: () => true,
  async find(step, _ids, core) {
    const match = isThirdPartyLogin(step);
    const what = `the ${step.thirdPartyId} login ${step.thirdPartyUserId}`;
    const r = await core.listUsersByAccountInfo({ thirdPartyId: step.thirdPartyId, thirdPartyUserId: step.thirdPartyUserId });
    return methodIn(r.users, match) ?? byExternalId(step, core, match, 'thirdparty', what);
  },
  async send(step, _ids, core) {
    const r = await core.thirdPartySignInUp({
      thirdPartyId: step.thirdPartyId,
      thirdPartyUserId: step.thirdPartyUserId,
      email: { id: step.email, isVerified: step.isVerified },
    });
    if (r.status !== 'OK') return fail(r.status, r.reason);
    const sent = `${step.thirdPartyId} ${step.thirdPartyUserId}`;
    loginIn(r, isThirdPartyLogin(step), { method: 'POST', path: '/recipe/signinup', sent }, r.recipeUserId);
    return done(r.createdNewUser, { recipeUserId: r.recipeUserId });
  },
  // The reference creates the login and marks its email verified in two transactions (ThirdParty.signInUp): a 500
  // or a kill between them leaves an unverified login. Its email is verified when the source says so, unless
  // the login's email changed in the core since (then it is the user's, not ours to verify).
  async complete(step, found, _ids, core) {
    const lm = found.method;
    if (!step.isVerified || !lm || lm.verified || lm.email !== norm(step.email)) return undefined;
    return markVerified(found.ids.recipeUserId!, lm.email, core);
  },
};

const isPasswordless = (step: Of<'passwordless-signinup'>) => (lm: LoginMethod) =>
  lm.recipeId === 'passwordless' && (step.email !== undefined ? lm.email === norm(step.email) : lm.phoneNumber === step.phoneNumber);

export const passwordlessSignInUp: StepRule<Of<'passwordless-signinup'>> = {
  requests: 'POST /recipe/signinup/code + /consume',
  calls: 3,
  describe: (step) =>
    `passwordless ${step.key === 'phone' ? 'phone sign-in' : 'one-time-code factor'} for ${step.email ?? step.phoneNumber} unless the user exists: GET /users/by-accountinfo, POST /recipe/signinup/code, POST /recipe/signinup/code/consume`,
  findFirst: () => true,
  async find(step, _ids, core) {
    const match = isPasswordless(step);
    const what = `the passwordless login ${step.email ?? step.phoneNumber}`;
    const query = step.email !== undefined ? { email: norm(step.email) } : { phoneNumber: step.phoneNumber! };
    return methodIn((await core.listUsersByAccountInfo(query)).users, match) ?? byExternalId(step, core, match, 'passwordless', what);
  },
  async send(step, _ids, core) {
    const contact = step.email !== undefined ? { email: step.email } : { phoneNumber: step.phoneNumber! };
    const code = await core.createCode(contact);
    if (code.status !== 'OK') return fail(code.status, 'the core refused to create a passwordless code');
    // A bare OK holds no code: nothing to consume. (A code of another request's flow is consumed, and the answer
    // then names that flow's contact: not ours, below; that flow's own consume then finds its user.)
    if ([code.preAuthSessionId, code.deviceId, code.userInputCode].some((f) => typeof f !== 'string'))
      foreign('POST', '/recipe/signinup/code', 'it holds no code');
    const r = await core.consumeCode({
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    if (r.status === 'OK') {
      const sent = `for ${step.email !== undefined ? norm(step.email) : step.phoneNumber}`;
      loginIn(r, isPasswordless(step), { method: 'POST', path: '/recipe/signinup/code/consume', sent }, r.recipeUserId);
      return done(r.createdNewUser, { recipeUserId: r.recipeUserId });
    }
    // RESTART_FLOW_ERROR after a consume that was applied (or half-applied: the code used up, no user) and
    // answered 500: the rule looks the user up, and starts the flow again with a new code if there is none.
    return fail(r.status, 'the core did not accept the code it had just created', r.status === 'RESTART_FLOW_ERROR');
  },
  // A consume of an email marks it verified (CDI >= 4.0) in a transaction after the one that creates the user
  // (Passwordless.java:462 then :471): the login found unverified gets what the consume promises.
  async complete(step, found, _ids, core) {
    const lm = found.method;
    if (step.email === undefined || !lm || lm.verified || lm.email !== norm(step.email)) return undefined;
    return markVerified(found.ids.recipeUserId!, lm.email, core);
  },
};
