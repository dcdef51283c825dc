// The protocol of migration at first sign-in, on the official Node SDK: after the core refuses a password, find
// the user's email-password login and its legacy entry, check the typed password against the legacy hash, and on
// a match set that password in the core (the core hashes it its own way), confirm the core's own hash accepts it,
// then end the entry. Every instance of the app runs the same steps against the same core: two sign-ins racing
// each set the same password, and the entry is removed only after the core's hash verifies (docs/migration.md §6a).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import type { RecipeInterface } from 'supertokens-node/recipe/emailpassword/types';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import UserRoles from 'supertokens-node/recipe/userroles';
import { checkLegacyPassword, type LegacyCheckSettings } from '../hashes/legacy-check.js';
import type { CognitoOptions, CognitoVerdict } from './cognito.js';
import { endingUpdate, readLegacyEntry, type LegacyEndedVia, type LegacyEntry } from './entry.js';
import type { TimingPad } from './timing.js';

type VerifyInput = Parameters<RecipeInterface['verifyCredentials']>[0];
type VerifyOutput = Awaited<ReturnType<RecipeInterface['verifyCredentials']>>;
type UserContext = VerifyInput['userContext'];

export interface SignInMigrationEvent {
  tenantId: string;
  /** The email-password login's user id (the external id when mapped). */
  userId: string;
  algorithm: string;
  outcome: 'migrated' | 'reset-required' | 'disabled' | 'unsupported';
  /** Why an entry could not be checked (never a hash or a password). */
  reason?: string;
}

export interface MigrateContext {
  hashes: LegacyCheckSettings;
  cognito?: CognitoOptions;
  pad: TimingPad;
  onEvent: (event: SignInMigrationEvent) => void;
  /** Where a user Cognito sends to reset goes (default: the SDK's password reset email). */
  onResetRequired: (input: { tenantId: string; userId: string; email: string; userContext: UserContext }) => Promise<void>;
  /** The migration under way per login in this process (see migrateAtSignIn). */
  inflight: Map<string, Promise<void>>;
}

async function entryOf(userId: string, userContext: UserContext): Promise<LegacyEntry | undefined> {
  return readLegacyEntry((await UserMetadata.getUserMetadata(userId, userContext)).metadata as Record<string, unknown>);
}

/** End a waiting entry (after a sign-in, or a password the user set by reset or change). */
export async function endEntry(userId: string, via: LegacyEndedVia, userContext: UserContext): Promise<boolean> {
  const entry = await entryOf(userId, userContext);
  if (!entry) return false;
  await UserMetadata.updateUserMetadata(userId, endingUpdate(entry, via, Date.now()) as never, userContext);
  return true;
}

type Verdict = 'match' | 'mismatch' | 'reset' | { unsupported: string };

async function check(entry: LegacyEntry, input: VerifyInput, ctx: MigrateContext): Promise<Verdict> {
  if (entry.algorithm === 'aws_cognito') {
    if (!ctx.cognito) return { unsupported: 'aws_cognito needs the cognito.checkPassword option' };
    const username = typeof entry.params?.username === 'string' ? entry.params.username : input.email;
    const userStatus = typeof entry.params?.userStatus === 'string' ? entry.params.userStatus : undefined;
    const verdict: CognitoVerdict = await ctx.cognito.checkPassword({ username, email: input.email, password: input.password, userStatus });
    return verdict === 'OK' ? 'match' : verdict === 'RESET_REQUIRED' ? 'reset' : 'mismatch';
  }
  const out = await checkLegacyPassword(entry, input.password, ctx.hashes);
  return out.result === 'unsupported' ? { unsupported: out.reason } : out.result;
}

async function stillDisabled(entry: LegacyEntry, tenantId: string, userId: string, userContext: UserContext): Promise<boolean> {
  if (entry.disabledRole === undefined) return false;
  try {
    return (await UserRoles.getRolesForUser(tenantId, userId, userContext)).roles.includes(entry.disabledRole);
  } catch {
    // UserRoles not initialised: the role cannot be read, so the user stays refused (the safe side).
    return true;
  }
}

/**
 * After the core answered WRONG_CREDENTIALS_ERROR: migrate the user if a legacy entry waits and the password
 * matches it. Returns the core's own OK answer after a migration, else undefined (the caller answers as the core did).
 */
export async function migrateAtSignIn(
  original: RecipeInterface,
  input: VerifyInput,
  ctx: MigrateContext,
): Promise<VerifyOutput | undefined> {
  const started = performance.now();
  const users = await supertokens.listUsersByAccountInfo(input.tenantId, { email: input.email }, false, input.userContext);
  let login: { userId: string; recipeUserId: ReturnType<typeof supertokens.convertToRecipeUserId>; primaryId: string } | undefined;
  for (const u of users) {
    const lm = u.loginMethods.find(
      (m) => m.recipeId === 'emailpassword' && m.hasSameEmailAs(input.email) && m.tenantIds.includes(input.tenantId),
    );
    if (lm) login = { userId: lm.recipeUserId.getAsString(), recipeUserId: lm.recipeUserId, primaryId: u.id };
  }
  const entry = login ? await entryOf(login.userId, input.userContext) : undefined;
  if (!login || !entry) {
    await ctx.pad.waitFrom(started);
    return undefined;
  }
  const checkStarted = performance.now();
  const verdict = await check(entry, input, ctx);
  ctx.pad.observe(performance.now() - checkStarted);
  const event = { tenantId: input.tenantId, userId: login.userId, algorithm: entry.algorithm };
  if (verdict !== 'match') {
    if (verdict === 'reset') {
      ctx.onEvent({ ...event, outcome: 'reset-required' });
      await ctx.onResetRequired({ tenantId: input.tenantId, userId: login.primaryId, email: input.email, userContext: input.userContext });
    } else if (typeof verdict === 'object') ctx.onEvent({ ...event, outcome: 'unsupported', reason: verdict.unsupported });
    await ctx.pad.waitFrom(started);
    return undefined;
  }
  if (await stillDisabled(entry, input.tenantId, login.primaryId, input.userContext)) {
    ctx.onEvent({ ...event, outcome: 'disabled' });
    await ctx.pad.waitFrom(started);
    return undefined;
  }
  // One migration of a login at a time in this process: a racing sign-in here waits for it, then finds the entry
  // ended and is served by the core. Instances elsewhere are covered by the protocol itself (module comment).
  const key = `${input.tenantId}\u0000${login.userId}`;
  const before = ctx.inflight.get(key) ?? Promise.resolve();
  const mine = before.then(() => write(original, input, login.userId, login.recipeUserId));
  const tail = mine.then(
    () => undefined,
    () => undefined,
  );
  ctx.inflight.set(key, tail);
  try {
    const out = await mine;
    if (out?.migrated) ctx.onEvent({ ...event, outcome: 'migrated' });
    return out?.answer;
  } finally {
    if (ctx.inflight.get(key) === tail) ctx.inflight.delete(key);
  }
}

async function write(
  original: RecipeInterface,
  input: VerifyInput,
  userId: string,
  recipeUserId: ReturnType<typeof supertokens.convertToRecipeUserId>,
): Promise<{ answer: VerifyOutput; migrated: boolean } | undefined> {
  // Read again just before the write: an entry ended meanwhile (a racing sign-in finished, or the user reset the
  // password) is never revived by setting the old password over the new one.
  if (!(await withRetries(() => entryOf(userId, input.userContext)))) {
    const now = await withRetries(() => original.verifyCredentials(input));
    return now.status === 'OK' ? { answer: now, migrated: false } : undefined;
  }
  const set = await withRetries(() =>
    original.updateEmailOrPassword({
      recipeUserId,
      password: input.password,
      applyPasswordPolicy: false,
      tenantIdForPasswordPolicy: input.tenantId,
      userContext: input.userContext,
    }),
  );
  if (set.status !== 'OK') return undefined;
  // The core's own hash must accept the password before the entry goes: until then a retry can still migrate.
  const confirmed = await withRetries(() => original.verifyCredentials(input));
  if (confirmed.status !== 'OK') return undefined;
  await withRetries(() => endEntry(userId, 'sign-in', input.userContext));
  return { answer: confirmed, migrated: true };
}

/**
 * The writes of a migration are safe to repeat (the same password, the same removal), so a core error on them
 * (a 500 from lock contention when racing sign-ins write at once: the reference core's in-memory storage answers
 * SQLITE_LOCKED_SHAREDCACHE) is retried, about 50, 200, 800, 1600 and 1600 ms apart (with jitter), before it
 * reaches the caller.
 */
async function withRetries<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= 5) throw err;
      await sleep(Math.min(1600, 50 * 4 ** attempt) * (0.75 + Math.random() / 2));
    }
  }
}

/** The default for Cognito users sent to reset: the SDK's own password reset email for the login. */
export async function sendResetEmail(input: { tenantId: string; userId: string; email: string; userContext: UserContext }): Promise<void> {
  await EmailPassword.sendResetPasswordEmail(input.tenantId, input.userId, input.email, input.userContext);
}
