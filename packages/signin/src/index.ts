// auth-migrate-signin: migration at first sign-in for apps on the official Node SDK (supertokens-node, a peer
// dependency). Plug `withLegacySignIn({ secret })` into EmailPassword.init's `override.functions` and initialise
// UserMetadata (and UserRoles when the run used --disabled role:NAME). README.md says how; the parts that need no
// SDK (entry format, MAC, placeholder, hash checkers) are ./protocol.
import { performance } from 'node:perf_hooks';
import type { RecipeInterface } from 'supertokens-node/recipe/emailpassword/types';
import type { LegacyCheckSettings } from './hashes/check.js';
import type { CognitoOptions } from './cognito.js';
import { endEntry, findLogin, loginIn, metadataOf, sourceIdIn, type VerifyInput, type VerifyOutput } from './login.js';
import { migrateAtSignIn, sendResetEmail, type MigrateContext, type SignInMigrationEvent } from './migrate.js';
import { LEGACY_DONE_KEY, LEGACY_ENTRY_KEY, LEGACY_PREVIOUS_KEY } from './protocol/entry.js';
import { secretProblem, SIGNIN_SECRET_ENV } from './protocol/mac.js';
import { isPlaceholder, PLACEHOLDER_PREFIX } from './protocol/placeholder.js';
import { TimingPad } from './timing.js';

export { cognitoVerdict, type CognitoCheckInput, type CognitoOptions, type CognitoVerdict } from './cognito.js';
export {
  LEGACY_DONE_KEY,
  LEGACY_ENTRY_KEY,
  LEGACY_PREVIOUS_KEY,
  type LegacyDone,
  type LegacyEndedVia,
  type LegacyEntry,
} from './protocol/entry.js';
export type { FirebaseHashSettings, LegacyCheckSettings, SpringSettings } from './protocol/index.js';
export type { SignInMigrationEvent } from './migrate.js';

export interface LegacySignInOptions {
  /** The secret the run was given (AUTH_MIGRATE_SIGNIN_SECRET): entries are honoured only with its MAC. Required. */
  secret: string;
  /** Settings some algorithms need and no record holds: Firebase's hash config, Spring's secret. */
  hashes?: LegacyCheckSettings;
  /** Users exported from AWS Cognito: the app's function asks the old pool (see cognitoVerdict). */
  cognito?: CognitoOptions;
  /** Where a user the old system sends to reset goes; default: the SDK's password reset email. */
  onResetRequired?: MigrateContext['onResetRequired'];
  /** Each migration, refusal and ignored or uncheckable entry (ids and algorithm only): for logs and metrics. */
  onEvent?: (event: SignInMigrationEvent) => void;
  /** No refusal comes sooner than this after the sign-in began (ms; default 0, then the slowest recent refusal). */
  minCheckMs?: number;
}

type Functions = (original: RecipeInterface) => RecipeInterface;

function defaultOnEvent(): (e: SignInMigrationEvent) => void {
  const warned = new Set<string>();
  return (e) => {
    // The operator learns of a missing setting once per algorithm, and of each ignored entry; never a secret.
    if (e.outcome === 'invalid-entry') console.warn(`auth-migrate-signin: the legacy entry of user ${e.userId} is ignored: ${e.reason}`);
    if (e.outcome !== 'unsupported' || warned.has(e.algorithm)) return;
    warned.add(e.algorithm);
    console.warn(`auth-migrate-signin: ${e.algorithm} legacy hashes cannot be checked: ${e.reason}`);
  };
}

/** The EmailPassword recipe override: `EmailPassword.init({ override: { functions: withLegacySignIn({ secret }) } })`. */
export function withLegacySignIn(options: LegacySignInOptions): Functions {
  const problem = secretProblem(options?.secret);
  if (problem) throw new Error(`withLegacySignIn: ${problem}; give it the secret the run was given (${SIGNIN_SECRET_ENV})`);
  const pad = new TimingPad(options.minCheckMs ?? 0);
  const ctx: MigrateContext = {
    secret: options.secret,
    hashes: options.hashes ?? {},
    ...(options.cognito ? { cognito: options.cognito } : {}),
    inflight: new Map(),
    onResetRequired: options.onResetRequired ?? sendResetEmail,
    onEvent: options.onEvent ?? defaultOnEvent(),
  };
  /** Whether an accepted password is the migration's placeholder of this login (looked at only when shaped like one). */
  const placeholderTyped = async (input: VerifyInput, ok: Extract<VerifyOutput, { status: 'OK' }>): Promise<string | undefined> => {
    if (!input.password.startsWith(PLACEHOLDER_PREFIX)) return undefined;
    const login = loginIn([ok.user], input.email, input.tenantId) ?? (await findLogin(input));
    if (!login) return undefined;
    const sourceId = sourceIdIn(await metadataOf(login.userId, input.userContext));
    return sourceId !== undefined && isPlaceholder(options.secret, sourceId, input.password) ? login.userId : undefined;
  };
  return (original) => ({
    ...original,
    // signIn, the sign-in API and the app's own credential checks all go through verifyCredentials.
    async verifyCredentials(input) {
      const started = performance.now();
      const first = await original.verifyCredentials(input);
      if (first.status === 'OK') {
        const refused = await placeholderTyped(input, first);
        if (refused === undefined) return first;
        ctx.onEvent({ tenantId: input.tenantId, userId: refused, algorithm: 'placeholder', outcome: 'placeholder-refused' });
        return { status: 'WRONG_CREDENTIALS_ERROR' };
      }
      const migrated = await migrateAtSignIn(original, input, ctx);
      if (migrated) return migrated;
      // Every refusal takes about as long as the slowest recent one: neither "has an entry" nor its algorithm shows.
      pad.observe(performance.now() - started);
      await pad.waitFrom(started);
      return first;
    },
    // A password the user sets (reset or change) ends the wait: the old password must never overwrite it later.
    async updateEmailOrPassword(input) {
      const out = await original.updateEmailOrPassword(input);
      if (out.status === 'OK' && input.password !== undefined) {
        const userId = input.recipeUserId.getAsString();
        const algorithm = await endEntry(userId, 'password-set', input.userContext);
        if (algorithm !== undefined)
          ctx.onEvent({
            tenantId: input.tenantIdForPasswordPolicy,
            userId,
            algorithm,
            outcome: 'password-set',
            reason: 'set through the SDK',
          });
      }
      return out;
    },
  });
}

/** The metadata without the reserved keys: for an app that hands a user's metadata to a browser. */
export function withoutLegacyEntry<T extends Record<string, unknown>>(
  metadata: T,
): Omit<T, typeof LEGACY_ENTRY_KEY | typeof LEGACY_DONE_KEY | typeof LEGACY_PREVIOUS_KEY> {
  const { [LEGACY_ENTRY_KEY]: _entry, [LEGACY_DONE_KEY]: _done, [LEGACY_PREVIOUS_KEY]: _previous, ...rest } = metadata;
  return rest;
}
