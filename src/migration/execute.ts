// Performs one step against the core and classifies the answer: created, already present (a rerun), or a
// failure carrying the core's status and description. Fatal client errors (401, 402, unreachable) propagate.
import { CoreClientError, CoreHttpError } from '../core-client/errors.js';
import type { CoreClient, CoreUser } from '../core-client/types.js';
import type { StepResult } from './journal.js';
import type { Step, StepRef } from './steps.js';

export type StepOutcome =
  | { ok: true; result: StepResult; ids: Record<string, string> }
  | { ok: false; status: string; message: string };

/** Ids produced so far for one user, by step key; `alias` holds the external id once mapped. */
export interface UserIds {
  recipe: Map<StepRef, string>;
  alias: Map<StepRef, string>;
}

export function newUserIds(): UserIds {
  return { recipe: new Map(), alias: new Map() };
}

/** The id later calls must use for a ref: the external id once mapped, else the recipe user id. */
export function resolveRef(ids: UserIds, ref: StepRef): string {
  const id = ids.alias.get(ref) ?? ids.recipe.get(ref);
  if (id === undefined) throw new Error(`internal: step ${ref} has produced no id yet`);
  return id;
}

/** Record what a completed step produced (also used to restore ids from the journal). */
export function applyStepIds(step: Step, produced: Record<string, string>, ids: UserIds): void {
  if (produced.recipeUserId !== undefined) ids.recipe.set(step.key, produced.recipeUserId);
  if (step.kind === 'map-user-id' && produced.externalUserId !== undefined) ids.alias.set(step.user, produced.externalUserId);
}

const done = (created: boolean, ids: Record<string, string> = {}): StepOutcome => ({ ok: true, result: created ? 'created' : 'already', ids });
const fail = (status: string, message: string): StepOutcome => ({ ok: false, status, message });

function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

function recipeUserIdFor(user: CoreUser, recipeId: string, match: (lm: CoreUser['loginMethods'][number]) => boolean): string {
  return user.loginMethods.find((lm) => lm.recipeId === recipeId && match(lm))?.recipeUserId ?? user.id;
}

/** Run one step. Non-fatal HTTP answers (e.g. a 400 for this record) become failures; fatal ones are thrown. */
export async function executeStep(step: Step, ids: UserIds, core: CoreClient): Promise<StepOutcome> {
  try {
    return await perform(step, ids, core);
  } catch (err) {
    if (err instanceof CoreHttpError && step.kind === 'import-password' && /^Unsupported password hashing algorithm/.test(err.body.trim())) {
      // Not this user's fault: every user with this algorithm would fail the same way.
      throw new CoreClientError(
        `the core at ${core.url} does not accept hashingAlgorithm "${step.hashingAlgorithm}" (HTTP 400 ${err.body.trim()}). ` +
          (step.hashingAlgorithm === 'external_scrypt'
            ? 'The reference core names it firebase_scrypt: rerun with --scrypt-algorithm-name firebase_scrypt.'
            : 'Use --scrypt-algorithm-name external_scrypt or firebase_scrypt, as the core expects.'),
        true,
      );
    }
    if (err instanceof CoreHttpError && !err.fatal) return fail(`HTTP ${err.status}`, err.body);
    throw err;
  }
}

async function perform(step: Step, ids: UserIds, core: CoreClient): Promise<StepOutcome> {
  switch (step.kind) {
    case 'import-password': {
      const r = await core.importPasswordHash({ email: step.email, passwordHash: step.passwordHash, hashingAlgorithm: step.hashingAlgorithm });
      const email = normaliseEmail(step.email);
      return done(!r.didUserAlreadyExist, { recipeUserId: recipeUserIdFor(r.user, 'emailpassword', (lm) => lm.email === email) });
    }
    case 'thirdparty-signinup': {
      const r = await core.thirdPartySignInUp({
        thirdPartyId: step.thirdPartyId,
        thirdPartyUserId: step.thirdPartyUserId,
        email: { id: step.email, isVerified: step.isVerified },
      });
      if (r.status !== 'OK') return fail(r.status, r.reason);
      return done(r.createdNewUser, { recipeUserId: r.recipeUserId });
    }
    case 'passwordless-signinup':
      return passwordlessSignInUp(step, core);
    case 'passwordless-add-contact': {
      const userId = resolveRef(ids, step.user);
      const current = await core.getUserById(userId);
      if (current.status !== 'OK') return fail(current.status, `the passwordless user ${userId} is not in the core`);
      const lm = current.user.loginMethods.find((m) => m.recipeUserId === userId && m.recipeId === 'passwordless');
      if (step.email !== undefined && lm?.email === normaliseEmail(step.email)) return done(false);
      if (step.phoneNumber !== undefined && lm?.phoneNumber === step.phoneNumber) return done(false);
      const r = await core.updatePasswordlessUser({
        recipeUserId: userId,
        ...(step.email !== undefined ? { email: step.email } : { phoneNumber: step.phoneNumber! }),
      });
      if (r.status === 'OK') return done(true);
      return fail(r.status, 'reason' in r ? r.reason : describeUpdateStatus(r.status));
    }
    case 'map-user-id':
      return mapUserId(step, ids, core);
    case 'verify-email':
      return verifyEmail(step, ids, core);
    case 'create-primary': {
      const r = await core.createPrimaryUser(resolveRef(ids, step.user));
      if (r.status === 'OK') return done(!r.wasAlreadyAPrimaryUser, { primaryUserId: r.user.id });
      return fail(r.status, `${r.description} (primary user ${r.primaryUserId})`);
    }
    case 'link-accounts': {
      const r = await core.linkAccounts(resolveRef(ids, step.user), resolveRef(ids, step.primary));
      if (r.status === 'OK') return done(!r.accountsAlreadyLinked, { primaryUserId: r.user.id });
      if (r.status === 'INPUT_USER_IS_NOT_A_PRIMARY_USER') return fail(r.status, 'the user to link to is not a primary user');
      return fail(r.status, `${r.description} (primary user ${r.primaryUserId})`);
    }
    case 'import-totp': {
      const userId = resolveRef(ids, step.user);
      const r = await core.importTotpDevice({ userId, deviceName: step.deviceName, secretKey: step.secretKey, period: step.period, skew: step.skew });
      if (r.status === 'OK') return done(true, { deviceName: r.deviceName });
      // A rerun: the same device (name, period, skew) is already there. The secret cannot be read back.
      const list = await core.listTotpDevices(userId);
      const same = list.devices.find((d) => d.name === step.deviceName);
      if (same && same.period === step.period && same.skew === step.skew) return done(false, { deviceName: step.deviceName });
      return fail(r.status, `user ${userId} already has a TOTP device named "${step.deviceName}" with other settings`);
    }
  }
}

function describeUpdateStatus(status: string): string {
  if (status === 'UNKNOWN_USER_ID_ERROR') return 'the passwordless user is unknown to the core';
  if (status === 'EMAIL_ALREADY_EXISTS_ERROR') return 'another passwordless user already has this email';
  if (status === 'PHONE_NUMBER_ALREADY_EXISTS_ERROR') return 'another passwordless user already has this phone number';
  return status;
}

async function passwordlessSignInUp(step: Extract<Step, { kind: 'passwordless-signinup' }>, core: CoreClient): Promise<StepOutcome> {
  const contact = step.email !== undefined ? { email: step.email } : { phoneNumber: step.phoneNumber! };
  // A consume whose answer was lost is retried by the client and then meets RESTART_FLOW_ERROR (the code is
  // spent): start over with a new code; the core then reuses the user it created (createdNewUser:false).
  let last: StepOutcome = fail('RESTART_FLOW_ERROR', 'the core kept restarting the passwordless flow');
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const code = await core.createCode(contact);
    if (code.status !== 'OK') {
      last = fail(code.status, 'the core refused to create a passwordless code');
      continue;
    }
    const r = await core.consumeCode({ preAuthSessionId: code.preAuthSessionId, deviceId: code.deviceId, userInputCode: code.userInputCode });
    if (r.status === 'OK') return done(r.createdNewUser, { recipeUserId: r.recipeUserId });
    last = fail(r.status, 'the core did not accept the code it had just created');
    if (r.status !== 'RESTART_FLOW_ERROR') break;
  }
  return last;
}

/**
 * Create a token and consume it at once. The token is a credential: it stays in this function (never in the
 * step's ids, the journal or a message). EMAIL_ALREADY_VERIFIED_ERROR is a rerun (or an email the core marks
 * verified itself).
 */
async function verifyEmail(step: Extract<Step, { kind: 'verify-email' }>, ids: UserIds, core: CoreClient): Promise<StepOutcome> {
  const userId = resolveRef(ids, step.user);
  const email = normaliseEmail(step.email);
  const created = await core.createEmailVerificationToken(userId, email);
  if (created.status === 'EMAIL_ALREADY_VERIFIED_ERROR') return done(false);
  const r = await core.verifyEmailToken(created.token);
  if (r.status === 'OK') return done(true);
  // A consume whose answer was lost is retried by the client and meets a spent token: ask the core.
  if ((await core.isEmailVerified(userId, email)).isVerified) return done(true);
  return fail(r.status, `the core did not accept the email verification token it had just created for ${email} of user ${userId}`);
}

async function mapUserId(step: Extract<Step, { kind: 'map-user-id' }>, ids: UserIds, core: CoreClient): Promise<StepOutcome> {
  const userId = resolveRef(ids, step.user);
  const mapped = { externalUserId: step.externalUserId };
  // The first factor already answered with the external id: the mapping exists (a rerun).
  if (userId === step.externalUserId) return done(false, mapped);
  const r = await core.createUserIdMapping({ superTokensUserId: userId, externalUserId: step.externalUserId });
  if (r.status === 'OK') return done(true, mapped);
  const existing = await core.getUserIdMapping(step.externalUserId, 'EXTERNAL');
  if (existing.status === 'OK' && existing.superTokensUserId === userId) return done(false, mapped);
  if (r.status === 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR') {
    return fail(r.status, `the core does not know the user ${userId} to map to external id ${step.externalUserId}`);
  }
  const other = existing.status === 'OK' ? `user ${existing.superTokensUserId}` : 'another external id';
  return fail(
    r.status,
    r.doesExternalUserIdExist
      ? `external id ${step.externalUserId} is already mapped to ${other}, not to ${userId}`
      : `user ${userId} is already mapped to another external id`,
  );
}
