// Checkers for the legacy hash families that need no secret besides the hash itself: plain and salted digests,
// PBKDF2 as Django, passlib and Keycloak write it, Django's salted and bcrypt_sha256 forms, crypt(3) and LDAP.
// Each returns true/false for a password, or a sentence saying why the hash cannot be checked.
import bcrypt from 'bcryptjs';
import type { LegacyPassword } from './types.js';
import { sameBytes } from './constant-time.js';
import { checkCrypt } from './crypt.js';
import { DIGEST_BYTES, type Digest, digest, digestName, fromAb64, fromBase64, fromHex, pbkdf2, storedDigest, utf8 } from './digests.js';

export type CheckResult = boolean | string;
export type Checker = (legacy: LegacyPassword, password: string) => Promise<CheckResult>;

const param = (legacy: LegacyPassword, key: string): string | number | undefined => legacy.params?.[key];

function saltBytes(legacy: LegacyPassword): Buffer {
  const salt = legacy.salt ?? '';
  const encoding = String(param(legacy, 'saltEncoding') ?? 'utf8').toLowerCase();
  if (encoding === 'hex') return fromHex(salt) ?? utf8(salt);
  if (encoding === 'base64') return fromBase64(salt) ?? utf8(salt);
  return utf8(salt);
}

/**
 * `md5`, `sha1`, `sha256`, `sha512` (and sha224/sha384): the digest of the password, hex or base64. With a salt:
 * `params.saltPosition` `prefix` (digest(salt + password), Django's and Firebase's default order) or `suffix`
 * (digest(password + salt), LDAP's and Spring's); when the record does not say, both orders are tried.
 */
export function plainDigest(algorithm: Digest): Checker {
  return async (legacy, password) => {
    const stored = storedDigest(legacy.hash.trim(), DIGEST_BYTES[algorithm]);
    if (!stored) return `the ${algorithm} hash is neither hex nor base64`;
    const pw = utf8(password);
    if (legacy.salt === undefined || legacy.salt === '') return sameBytes(digest(algorithm, pw), stored);
    const salt = saltBytes(legacy);
    const position = String(param(legacy, 'saltPosition') ?? '').toLowerCase();
    const prefix = sameBytes(digest(algorithm, salt, pw), stored);
    const suffix = sameBytes(digest(algorithm, pw, salt), stored);
    if (position === 'prefix' || position === 'before') return prefix;
    if (position === 'suffix' || position === 'after') return suffix;
    return prefix || suffix;
  };
}

/** PBKDF2 of the password against a stored key (its length is the key length); a reason when a parameter is off. */
export async function checkPbkdf2(
  password: string,
  salt: Buffer,
  iterations: number,
  stored: Buffer,
  algorithm: Digest | undefined,
): Promise<CheckResult> {
  if (!algorithm) return 'the pbkdf2 digest is not one of md5, sha1, sha224, sha256, sha384, sha512';
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 10_000_000)
    return 'the pbkdf2 iteration count is missing or out of range';
  if (stored.length === 0) return 'the pbkdf2 hash is empty';
  return sameBytes(await pbkdf2(utf8(password), salt, iterations, stored.length, algorithm), stored);
}

/** Django's `pbkdf2_sha256$<iterations>$<salt>$<base64>` (and pbkdf2_sha1): the salt is text, the key base64. */
export const djangoPbkdf2: Checker = async (legacy, password) => {
  const stored = fromBase64(legacy.hash);
  if (!stored) return 'the Django pbkdf2 hash is not base64';
  return checkPbkdf2(password, utf8(legacy.salt ?? ''), Number(param(legacy, 'iterations')), stored, digestName(param(legacy, 'digest')));
};

/** Django's `sha1$<salt>$<hex>` and `md5$<salt>$<hex>`: hex(digest(salt + password)). */
export const djangoSalted: Checker = async (legacy, password) => {
  const algorithm = digestName(param(legacy, 'digest'));
  const stored = fromHex(legacy.hash);
  if (!algorithm || !stored) return 'the Django salted hash is not md5 or sha1 in hex';
  return sameBytes(digest(algorithm, utf8(legacy.salt ?? ''), utf8(password)), stored);
};

/** Django's `bcrypt_sha256$`: bcrypt of the lowercase hex SHA-256 of the password. */
export const djangoBcryptSha256: Checker = async (legacy, password) => {
  const hash = legacy.hash.replace(/^bcrypt_sha256\$/, '');
  if (!/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)) return 'the bcrypt part of bcrypt_sha256 is not a $2a/$2b/$2y bcrypt string';
  return bcrypt.compare(digest('sha256', utf8(password)).toString('hex'), '$2a' + hash.slice(3));
};

/** passlib's `$pbkdf2-sha256$<iterations>$<ab64 salt>$<ab64 key>` (`$pbkdf2$` is sha1). */
export const passlibPbkdf2: Checker = async (legacy, password) => {
  const salt = fromAb64(legacy.salt ?? '');
  const stored = fromAb64(legacy.hash);
  if (!salt || !stored) return "the passlib pbkdf2 salt or key is not passlib's base64";
  return checkPbkdf2(password, salt, Number(param(legacy, 'iterations')), stored, digestName(param(legacy, 'digest') ?? 'sha1'));
};

/** Keycloak's `pbkdf2`, `pbkdf2-sha256`, `pbkdf2-sha512`: PBKDF2WithHmacSHA*(password, base64 salt), base64 key. */
export function keycloakPbkdf2(algorithm: Digest): Checker {
  return async (legacy, password) => {
    const salt = fromBase64(legacy.salt ?? '');
    const stored = fromBase64(legacy.hash);
    if (!salt || !stored) return 'the Keycloak pbkdf2 salt or value is not base64';
    return checkPbkdf2(password, salt, Number(param(legacy, 'iterations') ?? param(legacy, 'hashIterations')), stored, algorithm);
  };
}

/** crypt(3): `$1$` md5-crypt, `$5$` sha256-crypt, `$6$` sha512-crypt, the whole string as the hash. */
export const cryptChecker: Checker = async (legacy, password) =>
  checkCrypt(legacy.hash.replace(/^\{CRYPT\}/i, ''), password) ?? 'the hash is not a $1$, $5$ or $6$ crypt string';

const LDAP: Record<string, { algorithm: Digest; salted: boolean }> = {
  MD5: { algorithm: 'md5', salted: false },
  SMD5: { algorithm: 'md5', salted: true },
  SHA: { algorithm: 'sha1', salted: false },
  SSHA: { algorithm: 'sha1', salted: true },
  SHA256: { algorithm: 'sha256', salted: false },
  SSHA256: { algorithm: 'sha256', salted: true },
  SHA512: { algorithm: 'sha512', salted: false },
  SSHA512: { algorithm: 'sha512', salted: true },
};

/** LDAP `{SHA}`/`{SSHA}` (and MD5, SHA256, SHA512): base64 of the digest of password + salt, the salt appended. */
export const ldapChecker: Checker = async (legacy, password) => {
  const scheme = String(param(legacy, 'scheme') ?? '').toUpperCase();
  const form = LDAP[scheme];
  if (!form) return `the LDAP scheme {${scheme.slice(0, 10)}} has no checker`;
  const raw = fromBase64(legacy.hash);
  const size = DIGEST_BYTES[form.algorithm];
  if (!raw || raw.length < size || (!form.salted && raw.length !== size)) return `the {${scheme}} value is not base64 of the right length`;
  const salt = raw.subarray(size);
  return sameBytes(digest(form.algorithm, utf8(password), salt), raw.subarray(0, size));
};
