// Users whose password hash the core cannot take (docs/migration.md, "Migration at first sign-in"): under the
// default `--unusable-hashes skip` such a record is an error and the user is left out; under `without-password`
// it is a warning, the hash is set aside as `legacyPassword` (for the sign-in migration file) and the rest of
// the user is imported; under `migrate-at-sign-in` the user also gets an email-password login with an unusable
// password, and the hash waits in the core for the app's sign-in part (src/signin/). Messages never contain the hash.
import { flag, text, type RuleContext } from './rule-context.js';
import type { CanonicalLegacyPassword, CanonicalUser } from './types.js';
import { legacyCheckGap } from 'auth-migrate-signin/protocol';

export type UnusableHashPolicy = 'skip' | 'without-password' | 'migrate-at-sign-in';
export const UNUSABLE_HASH_POLICIES: readonly UnusableHashPolicy[] = ['skip', 'without-password', 'migrate-at-sign-in'];

/** Flag a recognised hash the core cannot import, by the run's policy, and keep it aside on the record. */
export function unusableHash(
  ctx: RuleContext,
  out: CanonicalUser,
  legacy: CanonicalLegacyPassword,
  rule: string,
  why: string,
  policy: UnusableHashPolicy = 'skip',
): void {
  out.legacyPassword = legacy;
  if (policy === 'migrate-at-sign-in') {
    const gap = legacyCheckGap(legacy);
    flag(
      ctx,
      'warning',
      rule,
      'password.hash',
      `${why}: the user is imported with an email-password login whose password is the migration's placeholder, and the hash waits, signed with AUTH_MIGRATE_SIGNIN_SECRET, in the core's user metadata until the app's sign-in part (the package auth-migrate-signin) checks it at first sign-in and sets the password${gap ? ` (but there is ${gap}: such users get in only through password reset)` : ''}; without an email the user is imported without a password`,
    );
  } else if (policy === 'without-password') {
    flag(
      ctx,
      'warning',
      rule,
      'password.hash',
      `${why}: the user is imported without a password (its other sign-in methods, factors and profile are), and the hash goes to the sign-in migration file for migration at first sign-in`,
    );
  } else {
    flag(
      ctx,
      'error',
      rule,
      'password.hash',
      `${why}, and the core cannot import it: the user is left out. --unusable-hashes migrate-at-sign-in imports the user and keeps the hash in the core for the app's sign-in part (the package auth-migrate-signin); --unusable-hashes without-password imports the rest of the user and lists the hash in the sign-in migration file`,
    );
  }
}

/**
 * Sources that export no hash at all, so only the source itself can check the password at first sign-in: an
 * empty `hash` is expected there (AWS Cognito: `aws_cognito`, with the user's `params.username`).
 */
export const HASHLESS_ALGORITHMS: ReadonlySet<string> = new Set(['aws_cognito']);

/** `legacyPassword` as a reader or a canonical record gives it: `{ algorithm, hash, salt?, params? }`. */
export function checkLegacyPassword(ctx: RuleContext, value: unknown, out: CanonicalUser, policy: UnusableHashPolicy | undefined): void {
  const o = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const algorithm = o ? text(o.algorithm) : undefined;
  const hashless = algorithm !== undefined && HASHLESS_ALGORITHMS.has(algorithm);
  const hash = o && typeof o.hash === 'string' && (o.hash.trim() !== '' || hashless) ? o.hash : undefined;
  if (!o || algorithm === undefined || hash === undefined) {
    flag(
      ctx,
      'error',
      'password.legacy.type',
      'legacyPassword',
      '`legacyPassword` must be `{ "algorithm": "md5", "hash": "...", "salt"?: "...", "params"?: {...} }` with a non-empty algorithm and hash; fix the record',
    );
    return;
  }
  const legacy: CanonicalLegacyPassword = { algorithm, hash };
  if (typeof o.salt === 'string' && o.salt !== '') legacy.salt = o.salt;
  if (typeof o.params === 'object' && o.params !== null && !Array.isArray(o.params))
    legacy.params = o.params as CanonicalLegacyPassword['params'];
  const why = hashless
    ? `the password is kept by ${algorithm} (which exports no hash; the app checks it there at first sign-in)`
    : `the password hash is ${algorithm.slice(0, 40)}`;
  unusableHash(ctx, out, legacy, 'password.unusable', why, policy);
}
