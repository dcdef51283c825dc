// auth-migrate/signin: migration at first sign-in for apps on the official Node SDK (supertokens-node, a peer
// dependency). Plug `withLegacySignIn(options)` into EmailPassword.init's `override.functions` and initialise
// UserMetadata (and UserRoles when the run used --disabled role:NAME). Imports nothing of the CLI, Ink or React.
import type { RecipeInterface } from 'supertokens-node/recipe/emailpassword/types';
import type { LegacyCheckSettings } from '../hashes/legacy-check.js';
import type { CognitoOptions } from './cognito.js';
import { LEGACY_DONE_KEY, LEGACY_ENTRY_KEY } from './entry.js';
import { endEntry, migrateAtSignIn, sendResetEmail, type MigrateContext, type SignInMigrationEvent } from './migrate.js';
import { TimingPad } from './timing.js';

export { cognitoVerdict, type CognitoCheckInput, type CognitoOptions, type CognitoVerdict } from './cognito.js';
export { LEGACY_DONE_KEY, LEGACY_ENTRY_KEY, type LegacyDone, type LegacyEntry } from './entry.js';
export type { FirebaseHashSettings, LegacyCheckSettings, SpringSettings } from '../hashes/legacy-check.js';
export type { SignInMigrationEvent } from './migrate.js';

export interface LegacySignInOptions {
  /** Settings some algorithms need and no record holds: Firebase's hash config, Spring's secret. */
  hashes?: LegacyCheckSettings;
  /** Users exported from AWS Cognito: the app's function asks the old pool (see cognitoVerdict). */
  cognito?: CognitoOptions;
  /** Where a user the old system sends to reset goes; default: the SDK's password reset email. */
  onResetRequired?: MigrateContext['onResetRequired'];
  /** Each migration, refusal and uncheckable entry (ids and algorithm only): for logs and metrics. */
  onEvent?: (event: SignInMigrationEvent) => void;
  /** No answer that is not a migration comes sooner than this after the core's (ms; default 0, then the slowest recent check). */
  minCheckMs?: number;
}

type Functions = (original: RecipeInterface) => RecipeInterface;

/** The EmailPassword recipe override: `EmailPassword.init({ override: { functions: withLegacySignIn(options) } })`. */
export function withLegacySignIn(options: LegacySignInOptions = {}): Functions {
  const warned = new Set<string>();
  const ctx: MigrateContext = {
    hashes: options.hashes ?? {},
    ...(options.cognito ? { cognito: options.cognito } : {}),
    pad: new TimingPad(options.minCheckMs ?? 0),
    inflight: new Map(),
    onResetRequired: options.onResetRequired ?? sendResetEmail,
    onEvent:
      options.onEvent ??
      ((e) => {
        // One line per algorithm that cannot be checked, so the operator learns of a missing setting; no secret.
        if (e.outcome !== 'unsupported' || warned.has(e.algorithm)) return;
        warned.add(e.algorithm);
        console.warn(`auth-migrate/signin: ${e.algorithm} legacy hashes cannot be checked: ${e.reason}`);
      }),
  };
  return (original) => ({
    ...original,
    // signIn, the sign-in API and the app's own credential checks all go through verifyCredentials.
    async verifyCredentials(input) {
      const first = await original.verifyCredentials(input);
      if (first.status === 'OK') return first;
      return (await migrateAtSignIn(original, input, ctx)) ?? first;
    },
    // A password the user sets (reset or change) ends the wait: the old password must never overwrite it later.
    async updateEmailOrPassword(input) {
      const out = await original.updateEmailOrPassword(input);
      if (out.status === 'OK' && input.password !== undefined)
        await endEntry(input.recipeUserId.getAsString(), 'password-set', input.userContext);
      return out;
    },
  });
}

/** The metadata without the reserved keys: for an app that hands a user's metadata to a browser. */
export function withoutLegacyEntry<T extends Record<string, unknown>>(
  metadata: T,
): Omit<T, typeof LEGACY_ENTRY_KEY | typeof LEGACY_DONE_KEY> {
  const { [LEGACY_ENTRY_KEY]: _entry, [LEGACY_DONE_KEY]: _done, ...rest } = metadata;
  return rest;
}
