// Password spot-check: verify a password the operator knows against a record's hash before import, with the
// same module the sandbox core signs in with, or, for a hash the core cannot take, with the legacy checker the
// app's sign-in part uses (auth-migrate-signin). Tells a wrong password from a hash that cannot be checked.
import { checkLegacyPassword } from 'auth-migrate-signin/protocol';
import { detectAlgorithm, parseExternalScrypt, stripExporterPrefix } from '../hashes/formats.js';
import { computeExternalScryptHash, hasNonAscii, verifyPassword } from '../hashes/verify.js';
import type { CanonicalLegacyPassword, CanonicalUser } from './types.js';

export type SpotCheckOutcome = {
  result: 'match' | 'wrong-password' | 'cannot-verify' | 'missing-signer-key' | 'no-password' | 'not-found';
  /** For the operator; never contains the password, the hash or the signer key. */
  detail: string;
  /** External scrypt with a non-ASCII password: the core reads it as US-ASCII. */
  nonAsciiRisk?: boolean;
};

export async function spotCheckPassword(
  record: CanonicalUser,
  password: string,
  options: { signerKey?: string },
): Promise<SpotCheckOutcome> {
  const stored = record.password?.hash;
  if (!stored && record.legacyPassword) return spotCheckLegacy(record.legacyPassword, password);
  if (!stored) return { result: 'no-password', detail: 'the user has no password hash to check against' };
  const hash = stripExporterPrefix(stored.trim()).hash;
  const algorithm = detectAlgorithm(hash);
  const nonAsciiRisk = algorithm === 'external_scrypt' && hasNonAscii(password);
  const outcome = await verifyPassword(hash, password, { signerKey: options.signerKey });
  const risk = nonAsciiRisk ? { nonAsciiRisk: true } : {};
  switch (outcome.result) {
    case 'match':
      return {
        result: 'match',
        detail: nonAsciiRisk
          ? 'the password matches as the core reads it (non-ASCII characters as "?"), which is not how the source hashed it; check that this is really right'
          : `the password matches the ${algorithm} hash`,
        ...risk,
      };
    case 'missing-signer-key':
      return {
        result: 'missing-signer-key',
        detail: 'the external scrypt variant needs the signer key: pass --signer-key (or AUTH_MIGRATE_SIGNER_KEY, or the hash config)',
        ...risk,
      };
    case 'unsupported':
      return { result: 'cannot-verify', detail: `cannot verify this format: ${outcome.reason}`, ...risk };
    case 'mismatch':
      if (nonAsciiRisk && (await matchesAsUtf8(hash, password, options.signerKey!))) {
        return {
          result: 'cannot-verify',
          detail:
            'the password is right, but it has non-ASCII characters and the core reads passwords as US-ASCII for this variant, so this user will not be able to sign in after import; they will need to reset their password',
          nonAsciiRisk: true,
        };
      }
      return {
        result: 'wrong-password',
        detail:
          algorithm === 'external_scrypt'
            ? 'wrong password, or the signer key, salt separator, rounds or mem_cost do not belong to this project: check the hash parameters'
            : 'wrong password: the password does not match the hash',
        ...risk,
      };
  }
}

/** The external scrypt variant over the password's UTF-8 bytes (how the source hashed it). */
async function matchesAsUtf8(hash: string, password: string, signerKey: string): Promise<boolean> {
  const p = parseExternalScrypt(hash);
  if (!p) return false;
  const computed = await computeExternalScryptHash(Buffer.from(password, 'utf8'), {
    salt: Buffer.from(p.salt, 'base64'),
    saltSeparator: p.saltSeparator,
    memCost: p.memCost,
    rounds: p.rounds,
    signerKey,
  });
  return computed.toString('base64') === p.passwordHash;
}

/**
 * A legacy hash (md5, pbkdf2, crypt, Keycloak, Firebase HMAC...): checked as the sign-in part will at first sign-in,
 * whatever --unusable-hashes says (the hash is the same). Firebase HMAC and Spring settings are the app's, not
 * the run's: such hashes answer cannot-verify here.
 */
async function spotCheckLegacy(legacy: CanonicalLegacyPassword, password: string): Promise<SpotCheckOutcome> {
  const algorithm = legacy.algorithm.slice(0, 40);
  if (algorithm === 'aws_cognito')
    return { result: 'cannot-verify', detail: 'Cognito exports no hash: the old pool checks the password at first sign-in' };
  const out = await checkLegacyPassword(legacy, password);
  if (out.result === 'match')
    return {
      result: 'match',
      detail: `the password matches the ${algorithm} legacy hash (the core cannot import it: --unusable-hashes migrate-at-sign-in has the app check it at first sign-in)`,
    };
  if (out.result === 'mismatch')
    return { result: 'wrong-password', detail: `wrong password: the password does not match the ${algorithm} legacy hash` };
  return { result: 'cannot-verify', detail: `cannot verify this ${algorithm} hash: ${out.reason}` };
}
