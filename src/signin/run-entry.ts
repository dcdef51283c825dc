// The run's side of migration at first sign-in: the signed legacy entry and the placeholder password hash of a user
// imported under `--unusable-hashes migrate-at-sign-in` (the format, MAC and placeholder are the package's:
// auth-migrate-signin/protocol). The secret lives in a closure: a signer serialised by mistake shows nothing.
import { placeholderHash, secretProblem, signEntry, SIGNIN_SECRET_ENV, type LegacyEntry } from 'auth-migrate-signin/protocol';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { CanonicalUser } from '../records/types.js';

export interface SignInSigner {
  /** The signed entry of a record migrated at first sign-in, or undefined when it has no legacy hash or email. */
  entry(record: CanonicalUser, disabledRole: string | undefined, since: number): LegacyEntry | undefined;
  /** The bcrypt hash of the record's placeholder password, imported as the login's password. */
  placeholderHash(sourceId: string): string;
}

export function signInSigner(secret: string): SignInSigner {
  return {
    entry: (record, disabledRole, since) => {
      const legacy = record.legacyPassword;
      if (!legacy || record.password || record.email === undefined) return undefined;
      return signEntry(secret, {
        sourceId: record.id,
        email: record.email,
        since,
        algorithm: legacy.algorithm,
        hash: legacy.hash,
        ...(legacy.salt !== undefined ? { salt: legacy.salt } : {}),
        ...(legacy.params !== undefined ? { params: legacy.params } : {}),
        ...(record.disabled && disabledRole !== undefined ? { disabledRole } : {}),
      });
    },
    placeholderHash: (sourceId) => placeholderHash(secret, sourceId),
  };
}

/** The signer of a run that writes under migrate-at-sign-in: refused (exit 2, naming the variable) without a usable secret. */
export function signerFromEnvironment(env: NodeJS.ProcessEnv, profileVariable?: string): SignInSigner {
  const secret = env[SIGNIN_SECRET_ENV];
  const problem = secretProblem(secret);
  const where = profileVariable !== undefined ? `${SIGNIN_SECRET_ENV} (or ${profileVariable}, the profile's)` : SIGNIN_SECRET_ENV;
  if (problem)
    throw new UsageError(
      `--unusable-hashes migrate-at-sign-in needs ${where} in the environment: ${problem}. The run signs each legacy entry ` +
        'with it and the app gives the same secret to withLegacySignIn({ secret }) (auth-migrate-signin); generate one with `openssl rand -base64 32`',
    );
  return signInSigner(secret!);
}

const BCRYPT64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A bcrypt string no password matches (random salt and checksum: 184 random bits), for a dry run that has no
 * secret: what it shows in place of the placeholder's hash. A real run always imports the placeholder's.
 */
export function unusableBcryptHash(): string {
  let tail = '';
  for (const b of randomBytes(53)) tail += BCRYPT64[b & 63];
  return `$2a$04$${tail}`;
}
