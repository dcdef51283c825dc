// Password hashes the core cannot import (md5, sha-*, pbkdf2, crypt(3) variants, LDAP and Django forms, Django's
// bcrypt_sha256): recognised by shape so a user can be imported without the password and the hash handed to the
// app's backend for migration at first sign-in (docs/migration.md). Parsing never validates the hash itself.
import type { LegacyPassword } from './types.js';

interface Shape {
  pattern: RegExp;
  /** The algorithm name written to the sign-in migration file. */
  algorithm: string;
  /** Split into hash, salt and parameters, where the form has them. */
  parts?: (m: RegExpExecArray) => Pick<LegacyPassword, 'hash' | 'salt' | 'params'>;
}

const HEX_LENGTHS: Array<[number, string]> = [
  [32, 'md5'],
  [40, 'sha1'],
  [64, 'sha256'],
  [128, 'sha512'],
];

const SHAPES: Shape[] = [
  // Django: <algorithm>$<iterations>$<salt>$<base64 hash>, sha1$<salt>$<hex>, md5$<salt>$<hex>.
  {
    pattern: /^(pbkdf2_sha256|pbkdf2_sha1)\$(\d+)\$([^$]*)\$([A-Za-z0-9+/=]+)$/,
    algorithm: 'django_pbkdf2',
    parts: (m) => ({ hash: m[4]!, salt: m[3]!, params: { digest: m[1]!.slice(7), iterations: Number(m[2]) } }),
  },
  {
    pattern: /^(sha1|md5)\$([^$]*)\$([0-9a-f]+)$/,
    algorithm: 'django_salted',
    parts: (m) => ({ hash: m[3]!, salt: m[2]!, params: { digest: m[1]! } }),
  },
  // Django's bcrypt_sha256: bcrypt of the hex SHA-256 of the password (never stripped to its bcrypt part).
  { pattern: /^bcrypt_sha256\$(\$2[abxy]\$.+)$/, algorithm: 'django_bcrypt_sha256', parts: (m) => ({ hash: m[1]! }) },
  // passlib / PHC-like pbkdf2: $pbkdf2-sha256$<iterations>$<salt>$<hash>.
  {
    pattern: /^\$pbkdf2(?:-(sha1|sha256|sha512))?\$(\d+)\$([^$]*)\$([^$]+)$/,
    algorithm: 'passlib_pbkdf2',
    parts: (m) => ({ hash: m[4]!, salt: m[3]!, params: { digest: m[1] ?? 'sha1', iterations: Number(m[2]) } }),
  },
  // crypt(3): $1$ md5-crypt, $5$ sha256-crypt, $6$ sha512-crypt (optional rounds=N$).
  { pattern: /^\$1\$[^$]{0,8}\$[./0-9A-Za-z]{22}$/, algorithm: 'md5_crypt' },
  { pattern: /^\$5\$(?:rounds=\d+\$)?[^$]{0,16}\$[./0-9A-Za-z]{43}$/, algorithm: 'sha256_crypt' },
  { pattern: /^\$6\$(?:rounds=\d+\$)?[^$]{0,16}\$[./0-9A-Za-z]{86}$/, algorithm: 'sha512_crypt' },
  // phpass portable hashes (WordPress, phpBB, Drupal 7 imports): $P$ or $H$, a count, 8 salt and 22 checksum characters.
  { pattern: /^\$[PH]\$[./0-9A-Za-z]{31}$/, algorithm: 'phpass' },
  // Werkzeug (Flask): scrypt:N:r:p$salt$hex or pbkdf2:<digest>:<iterations>$salt$hex.
  { pattern: /^(?:scrypt(?::\d+){3}|pbkdf2:[a-z0-9]+:\d+)\$[^$]*\$[0-9a-f]+$/, algorithm: 'werkzeug' },
  // LDAP and Spring Security `{id}` forms (Spring's `{noop}` is a plaintext password).
  {
    pattern: /^\{(SSHA|SHA|SMD5|MD5|SSHA256|SSHA512|SHA256|SHA512)\}(.+)$/i,
    algorithm: 'ldap',
    parts: (m) => ({ hash: m[2]!, params: { scheme: m[1]!.toUpperCase() } }),
  },
  { pattern: /^\{(pbkdf2|sha256|MD4|noop|scrypt)\}(.+)$/, algorithm: 'spring', parts: (m) => ({ hash: m[2]!, params: { id: m[1]! } }) },
];

/** The legacy form of a hash the core cannot take, or undefined when the shape is not recognised. */
export function detectLegacyHash(hash: string): LegacyPassword | undefined {
  const trimmed = hash.trim();
  if (/^[0-9a-f]+$/i.test(trimmed)) {
    const hit = HEX_LENGTHS.find(([len]) => len === trimmed.length);
    return hit ? { algorithm: hit[1], hash: trimmed } : undefined;
  }
  for (const shape of SHAPES) {
    const m = shape.pattern.exec(trimmed);
    if (m) return { algorithm: shape.algorithm, ...(shape.parts ? shape.parts(m) : { hash: trimmed }) };
  }
  return undefined;
}

/** The names detectLegacyHash gives, for docs and help. */
export const LEGACY_ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512', ...SHAPES.map((s) => s.algorithm)];
