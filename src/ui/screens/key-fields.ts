// The keys screen's fields as data: the profile's three secrets (api key, licence key, signer key) and the sign-in
// secret of migrate-at-sign-in (AUTH_MIGRATE_SIGNIN_SECRET), each with its label, where it may be kept, the check it
// must pass and the variable it is read from by default. Pure (no React): KeysScreen.tsx renders them.
import { secretProblem, SIGNIN_SECRET_ENV } from 'auth-migrate-signin/protocol';
import { assertEnvName, checkSecret, SECRET_LABELS, SECRET_NAMES, type Profile, type SecretSource } from '../../profiles/index.js';
import type { KeyName, WizardState } from '../state/types.js';

export type Store = SecretSource['store'];
export const KEY_NAMES: readonly KeyName[] = [...SECRET_NAMES, 'signInSecret'];
export const KEY_LABELS: Record<KeyName, string> = { ...SECRET_LABELS, signInSecret: 'sign-in secret' };
export const STORE_LABELS: Record<Store, string> = { none: "don't store", file: 'secrets file (0600)', env: 'env variable' };

/**
 * Where a key may be kept. The sign-in secret: in memory (asked again, or pre-filled from AUTH_MIGRATE_SIGNIN_SECRET)
 * or read from a variable the profile names, never in a file (issue 32: the app needs it from its own store too).
 */
export const storesOf = (name: KeyName): Store[] => (name === 'signInSecret' ? ['none', 'env'] : ['none', 'file', 'env']);

export const DEFAULT_ENV: Record<KeyName, string> = {
  apiKey: 'AUTH_MIGRATE_API_KEY',
  licenseKey: 'AUTH_MIGRATE_LICENSE_KEY',
  signerKey: 'AUTH_MIGRATE_SIGNER_KEY',
  signInSecret: SIGNIN_SECRET_ENV,
};

export function sourceOf(profile: Profile, name: KeyName): SecretSource {
  return name === 'signInSecret' ? (profile.signinSecret ?? { store: 'none' }) : profile.secrets[name];
}

/** The profile keeping `name` as `source` (for the sign-in secret: a variable's name, or nothing). */
export function withSource(profile: Profile, name: KeyName, source: SecretSource): Profile {
  if (name !== 'signInSecret') return { ...profile, secrets: { ...profile.secrets, [name]: source } };
  const { signinSecret: _drop, ...rest } = profile;
  return source.store === 'env' ? { ...rest, signinSecret: source } : rest;
}

export const valueOf = (state: WizardState, name: KeyName): string =>
  (name === 'signInSecret' ? state.signInSecret : state.secrets[name]) ?? '';

/** Why this value cannot be used (never echoing it); an empty value means "not given" and passes. */
export function keyProblem(name: KeyName, value: string): string | undefined {
  if (name !== 'signInSecret') return checkSecret(name, value);
  return value === '' ? undefined : secretProblem(value);
}

export function envNameProblem(name: string): string | undefined {
  try {
    assertEnvName(name);
    return undefined;
  } catch {
    return 'not a variable name';
  }
}

/** What the plan says when migrate-at-sign-in is chosen without a usable sign-in secret (undefined: it has one). */
export function signInSecretNeeded(state: WizardState): string | undefined {
  if (state.profile?.unusableHashes !== 'migrate-at-sign-in') return undefined;
  const problem = state.signInSecret ? secretProblem(state.signInSecret) : 'not set';
  return problem
    ? `migrate at sign-in needs the sign-in secret (${problem}): fill "sign-in secret" on the keys screen (step 2)`
    : undefined;
}
