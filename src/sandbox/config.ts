// The sandbox core's settings: keys from options or environment, plus the limits the reference core
// reads from its config (with hidden environment overrides so tests can reach expiry and cooldowns fast).

export interface SandboxConfig {
  apiKeys: string[];
  /** Licence key given on the command line; the stored one (PUT /ee/license) takes over once set. */
  licenseKey?: string;
  /** base64 signer key of the external scrypt variant. */
  signerKey?: string;
  passwordlessCodeLifetimeMs: number;
  passwordlessMaxCodeInputAttempts: number;
  /** email_verification_token_lifetime of the reference core (default one day). */
  emailVerificationTokenLifetimeMs: number;
  totpMaxAttempts: number;
  totpCooldownSec: number;
  /** Cost of the bcrypt hashes the sandbox itself makes (sign-up, password update). */
  bcryptRounds: number;
  /** Interval of the bulk-import processing job (`core --bulk-import-interval SECONDS`; default 5 s, the reference's is 300 s). */
  bulkImportIntervalMs: number;
  /** Staged users the job claims at once (`core --bulk-import-batch-size`; the reference's bulk_migration_batch_size, 8000). */
  bulkImportBatchSize: number;
  /**
   * A claim of the job lasts a whole number of these, at least one (`core --bulk-import-claim-ms`; 0: as long as its
   * work). The reference's job checks a claim's workers once a second (ProcessBulkImportUsers: `while
   * (!task.isDone()) Thread.sleep(1000)`): a claim's rows leave the list when its work is done, and the next
   * claim waits for the next second.
   */
  bulkImportClaimMs: number;
  /** Claims the job may still take before it waits (POST /sandbox-test/bulk-import-hold; tests only): unset, no limit. */
  bulkImportClaimsLeft?: number;
  /** Enables POST /sandbox-test/clock, which moves the clock forward. Tests only. */
  testHooks: boolean;
  /** Added to the system clock; only moved by the test hook. */
  clockOffsetMs: number;
  /** The clock every time-dependent rule reads (ms since the epoch). */
  now: () => number;
}

export const CDI_VERSIONS = [
  '2.7',
  '2.8',
  '2.9',
  '2.10',
  '2.11',
  '2.12',
  '2.13',
  '2.14',
  '2.15',
  '2.16',
  '2.17',
  '2.18',
  '2.19',
  '2.20',
  '2.21',
  '3.0',
  '3.1',
  '4.0',
  '5.0',
  '5.1',
  '5.2',
  '5.3',
  '5.4',
  '5.5',
  '5.6',
];
export const LATEST_CDI = '5.6';

export const DEFAULT_BULK_IMPORT_INTERVAL_SEC = 5;
export const REFERENCE_BULK_IMPORT_INTERVAL_SEC = 300;
export const DEFAULT_BULK_IMPORT_BATCH_SIZE = 8000;

/** The hidden test options, read from the environment (documented in docs/sandbox.md). */
export const TEST_ENV = {
  codeLifetimeMs: 'AUTH_MIGRATE_SANDBOX_CODE_LIFETIME_MS',
  maxCodeAttempts: 'AUTH_MIGRATE_SANDBOX_MAX_CODE_INPUT_ATTEMPTS',
  emailVerificationTokenLifetimeMs: 'AUTH_MIGRATE_SANDBOX_EMAIL_VERIFICATION_TOKEN_LIFETIME_MS',
  totpMaxAttempts: 'AUTH_MIGRATE_SANDBOX_TOTP_MAX_ATTEMPTS',
  totpCooldownSec: 'AUTH_MIGRATE_SANDBOX_TOTP_COOLDOWN_SEC',
  bcryptRounds: 'AUTH_MIGRATE_SANDBOX_BCRYPT_ROUNDS',
  testHooks: 'AUTH_MIGRATE_SANDBOX_TEST_HOOKS',
} as const;

export function configFromEnv(env: NodeJS.ProcessEnv, base: Pick<SandboxConfig, 'apiKeys' | 'licenseKey' | 'signerKey'>): SandboxConfig {
  const num = (name: string, dflt: number): number => {
    const v = env[name];
    const n = v === undefined || v === '' ? NaN : Number(v);
    return Number.isFinite(n) && n >= 0 ? n : dflt;
  };
  const config: SandboxConfig = {
    ...base,
    passwordlessCodeLifetimeMs: num(TEST_ENV.codeLifetimeMs, 900_000),
    passwordlessMaxCodeInputAttempts: num(TEST_ENV.maxCodeAttempts, 5),
    emailVerificationTokenLifetimeMs: num(TEST_ENV.emailVerificationTokenLifetimeMs, 86_400_000),
    totpMaxAttempts: num(TEST_ENV.totpMaxAttempts, 5),
    totpCooldownSec: num(TEST_ENV.totpCooldownSec, 900),
    bcryptRounds: num(TEST_ENV.bcryptRounds, 11),
    bulkImportIntervalMs: DEFAULT_BULK_IMPORT_INTERVAL_SEC * 1000,
    bulkImportBatchSize: DEFAULT_BULK_IMPORT_BATCH_SIZE,
    bulkImportClaimMs: 0,
    testHooks: env[TEST_ENV.testHooks] === '1',
    clockOffsetMs: 0,
    now: () => Date.now() + config.clockOffsetMs,
  };
  return config;
}

export function defaultConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  return { ...configFromEnv({}, { apiKeys: [] }), ...overrides };
}
