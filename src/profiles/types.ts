// What a saved migration profile holds. Plain data: secrets are never part of a Profile, only how to find them.

export type SecretName = 'apiKey' | 'licenseKey' | 'signerKey';
export const SECRET_NAMES: readonly SecretName[] = ['apiKey', 'licenseKey', 'signerKey'];

/** Human labels, used in messages and on screen. */
export const SECRET_LABELS: Record<SecretName, string> = {
  apiKey: 'api key',
  licenseKey: 'licence key',
  signerKey: 'signer key',
};

/**
 * Where a secret comes from when the profile is loaded:
 * - `none`: not stored; the wizard asks again next time (headless commands need a flag or env var);
 * - `file`: kept in the secrets file (mode 0600, separate from the profiles file);
 * - `env`: read from the environment variable `name` at load time.
 */
export type SecretSource = { store: 'none' } | { store: 'file' } | { store: 'env'; name: string };

export type ProfileTarget = { kind: 'sandbox'; store?: string } | { kind: 'remote'; url: string; tenant?: string; app?: string };

export interface ProfileSource {
  path: string;
  /** A reader format name (e.g. `canonical`, `firebase`, `auth0`); absent = detect from the file. */
  format?: string;
}

/** Firebase scrypt parameters as the console shows them, minus the signer key (a secret). */
export interface ProfileHashConfig {
  algorithm?: string;
  saltSeparator: string;
  rounds: number;
  memCost: number;
}

export interface Profile {
  name: string;
  target: ProfileTarget;
  sources: ProfileSource[];
  hashConfig?: ProfileHashConfig;
  /** Source provider id -> core third-party id, overriding the default table. */
  providerMap?: Record<string, string>;
  concurrency?: number;
  keepSourceIds?: boolean;
  /** Replace the password hash of users already in the core (`run --update-existing`). */
  updateExisting?: boolean;
  /** Users disabled in the source: `skip` (default), `import` or `role:NAME` (`run --disabled`). */
  disabled?: string;
  /** Users whose hash the core cannot take: `skip` (default) or `without-password` (`run --unusable-hashes`). */
  unusableHashes?: 'skip' | 'without-password' | 'migrate-at-sign-in';
  /**
   * Where migrate-at-sign-in's secret comes from when AUTH_MIGRATE_SIGNIN_SECRET is not set: the environment
   * variable named here (never a value, never a file: the app needs the same secret from its own store).
   */
  signinSecret?: { store: 'env'; name: string };
  scryptAlgorithmName?: string;
  /** How users are written: `steps` (default), `bulk` or `bulk-staged` (`run --via`, migration/via.ts). */
  via?: 'steps' | 'bulk' | 'bulk-staged';
  /** `bulk-staged`: how often the core runs its bulk-import job, in seconds (`run --job-interval`); absent = default. */
  jobIntervalSec?: number;
  secrets: Record<SecretName, SecretSource>;
  createdAt?: string;
  updatedAt?: string;
}

export type Secrets = Partial<Record<SecretName, string>>;

/** A profile with its secrets resolved for this process. */
export interface LoadedProfile {
  profile: Profile;
  secrets: Secrets;
  /** Secrets the profile expects to find but could not (not stored, env var unset, file entry missing). */
  missing: SecretName[];
}

export function emptyProfile(name: string): Profile {
  return {
    name,
    target: { kind: 'sandbox' },
    sources: [],
    secrets: { apiKey: { store: 'none' }, licenseKey: { store: 'none' }, signerKey: { store: 'none' } },
  };
}
