// The protocol of migration at first sign-in, on the official Node SDK (docs/signin-protocol.md §4): after the core
// refuses a password, find the user's email-password login and its legacy entry, check the entry's MAC, then the
// typed password against the legacy hash; on a match ask the core whether the placeholder still opens the login
// (else a password was set since: the entry ends, the old password is refused), set the typed password in the core
// (the core hashes it its own way), confirm the core's own hash accepts it, then end the entry. Every instance of
// the app runs the same steps against the same core: two sign-ins racing each set the same password.
import { setTimeout as sleep } from 'node:timers/promises';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import type { RecipeInterface } from 'supertokens-node/recipe/emailpassword/types';
import UserRoles from 'supertokens-node/recipe/userroles';
import { checkLegacyPassword, type LegacyCheckSettings } from './hashes/check.js';
import type { CognitoOptions, CognitoVerdict } from './cognito.js';
import {
  checkedEntry,
  endEntry,
  findLogin,
  metadataOf,
  type Login,
  type UserContext,
  type VerifyInput,
  type VerifyOutput,
} from './login.js';
import type { LegacyEntry } from './protocol/entry.js';
import { placeholderPassword } from './protocol/placeholder.js';

export interface SignInMigrationEvent {
  tenantId: string;
  /** The email-password login's user id (the external id when mapped). */
  userId: string;
  algorithm: string;
  /**
   * `migrated`: the old password is now the core's; `password-set`: a password was set since the run, the entry
   * ended; `invalid-entry`: an entry without a valid MAC, ignored; `placeholder-refused`: the placeholder was typed;
   * `reset-required`, `disabled`, `unsupported`: the entry waits on.
   */
  outcome: 'migrated' | 'password-set' | 'invalid-entry' | 'placeholder-refused' | 'reset-required' | 'disabled' | 'unsupported';
  /** Why an entry was ignored or could not be checked (never a hash, a password or the secret). */
  reason?: string;
}

export interface MigrateContext {
  secret: string;
  hashes: LegacyCheckSettings;
  cognito?: CognitoOptions;
  onEvent: (event: SignInMigrationEvent) => void;
  /** Where a user Cognito sends to reset goes (default: the SDK's password reset email). */
  onResetRequired: (input: { tenantId: string; userId: string; email: string; userContext: UserContext }) => Promise<void>;
  /** The migration under way per login in this process (see migrateAtSignIn). */
  inflight: Map<string, Promise<void>>;
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
 * After the core answered WRONG_CREDENTIALS_ERROR: migrate the user if a valid legacy entry waits and the password
 * matches it. Returns the core's own OK answer after a migration, else undefined (the caller answers as the core did).
 */
export async function migrateAtSignIn(
  original: RecipeInterface,
  input: VerifyInput,
  ctx: MigrateContext,
): Promise<VerifyOutput | undefined> {
  const login = await findLogin(input);
  if (!login) return undefined;
  const found = checkedEntry(await metadataOf(login.userId, input.userContext), ctx.secret, login.email);
  if (!found) return undefined;
  const event = { tenantId: input.tenantId, userId: login.userId };
  if ('invalid' in found) {
    ctx.onEvent({ ...event, algorithm: found.algorithm, outcome: 'invalid-entry', reason: found.invalid });
    return undefined;
  }
  const entry = found.entry;
  const verdict = await check(entry, input, ctx);
  if (verdict !== 'match') {
    if (verdict === 'reset') {
      ctx.onEvent({ ...event, algorithm: entry.algorithm, outcome: 'reset-required' });
      await ctx.onResetRequired({ tenantId: input.tenantId, userId: login.primaryId, email: input.email, userContext: input.userContext });
    } else if (typeof verdict === 'object')
      ctx.onEvent({ ...event, algorithm: entry.algorithm, outcome: 'unsupported', reason: verdict.unsupported });
    return undefined;
  }
  if (await stillDisabled(entry, input.tenantId, login.primaryId, input.userContext)) {
    ctx.onEvent({ ...event, algorithm: entry.algorithm, outcome: 'disabled' });
    return undefined;
  }
  // One migration of a login at a time in this process: a racing sign-in here waits for it, then finds the entry
  // ended and is served by the core. Instances elsewhere are covered by the protocol itself (module comment).
  const key = `${input.tenantId}\u0000${login.userId}`;
  const before = ctx.inflight.get(key) ?? Promise.resolve();
  const mine = before.then(() => write(original, input, login, entry, ctx));
  const tail = mine.then(
    () => undefined,
    () => undefined,
  );
  ctx.inflight.set(key, tail);
  try {
    const out = await mine;
    if (out.outcome !== 'none') ctx.onEvent({ ...event, algorithm: entry.algorithm, outcome: out.outcome });
    return out.answer;
  } finally {
    if (ctx.inflight.get(key) === tail) ctx.inflight.delete(key);
  }
}

type WriteOutcome = { answer?: VerifyOutput; outcome: 'migrated' | 'password-set' | 'none' };

async function write(
  original: RecipeInterface,
  input: VerifyInput,
  login: Login,
  entry: LegacyEntry,
  ctx: MigrateContext,
): Promise<WriteOutcome> {
  const coreNow = async (): Promise<WriteOutcome> => {
    const now = await withRetries(() => original.verifyCredentials(input));
    return now.status === 'OK' ? { answer: now, outcome: 'none' } : { outcome: 'none' };
  };
  // Read again just before the write: an entry ended or replaced meanwhile (a racing sign-in finished, the user reset
  // the password, a sync brought a new hash) is never acted on with the old one.
  const again = checkedEntry(await withRetries(() => metadataOf(login.userId, input.userContext)), ctx.secret, login.email);
  if (!again || 'invalid' in again || again.entry.mac !== entry.mac) return coreNow();
  // The login must still hold the migration's placeholder: if not, a password was set since, by whatever path.
  const placeholder = { ...input, password: placeholderPassword(ctx.secret, entry.sourceId) };
  if ((await withRetries(() => original.verifyCredentials(placeholder))).status !== 'OK') {
    // A racing instance may have just migrated this very password; else the password set since stays.
    const now = await coreNow();
    if (now.answer) return now;
    await withRetries(() => endEntry(login.userId, 'password-set', input.userContext));
    return { outcome: 'password-set' };
  }
  const set = await withRetries(() =>
    original.updateEmailOrPassword({
      recipeUserId: login.recipeUserId,
      password: input.password,
      applyPasswordPolicy: false,
      tenantIdForPasswordPolicy: input.tenantId,
      userContext: input.userContext,
    }),
  );
  if (set.status !== 'OK') return { outcome: 'none' };
  // The core's own hash must accept the password before the entry goes: until then a retry can still migrate.
  const confirmed = await withRetries(() => original.verifyCredentials(input));
  if (confirmed.status !== 'OK') return { outcome: 'none' };
  await withRetries(() => endEntry(login.userId, 'sign-in', input.userContext));
  return { answer: confirmed, outcome: 'migrated' };
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
