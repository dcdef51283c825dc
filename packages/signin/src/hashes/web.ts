// Checkers for web frameworks' password forms that Clerk (and other exports) carry and the core cannot import:
// phpass (WordPress, phpBB, Drupal 7's `$P$`/`$H$`), Werkzeug's (Flask) `scrypt:N:r:p$salt$hex` and
// `pbkdf2:<digest>:<iterations>$salt$hex`, Clerk's own pbkdf2 layouts (its `password_hasher` names), and
// Supabase's `$fbscrypt$` where the core's Firebase scrypt cannot hold it (p other than 1). Digests come from
// node:crypto and hash-wasm; comparisons are constant-time; no message quotes the hash.
import { createCipheriv } from 'node:crypto';
import type { LegacyPassword } from './types.js';
import { sameBytes } from './constant-time.js';
import { digest, digestName, fromBase64, fromHex, scryptBytes, utf8 } from './digests.js';
import { type Checker, checkPbkdf2 } from './families.js';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** phpass's own base64 (PasswordHash::encode64): little-endian groups of 3 bytes, ITOA64 alphabet. */
function encode64(input: Buffer): string {
  let out = '';
  for (let i = 0; i < input.length; i += 3) {
    const value = input[i]! | ((input[i + 1] ?? 0) << 8) | ((input[i + 2] ?? 0) << 16);
    const chars = Math.min(4, Math.ceil(((input.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out += ITOA64[(value >> (6 * c)) & 0x3f];
  }
  return out;
}

/**
 * phpass portable hashes (openwall.com/phpass, PasswordHash::crypt_private): `$P$` (or phpBB's `$H$`), one
 * character for log2 of the iterations, 8 characters of salt, 22 of checksum; x = md5(salt + password), then
 * `2^n` times x = md5(x + password). More than 2^20 iterations is refused (a sign-in must not take minutes).
 */
export const phpassChecker: Checker = async (legacy, password) => {
  const m = /^\$[PH]\$([./0-9A-Za-z])([./0-9A-Za-z]{8})([./0-9A-Za-z]{22})$/.exec(legacy.hash.trim());
  if (!m) return 'the hash is not a portable phpass string ($P$ or $H$, 34 characters)';
  const log2 = ITOA64.indexOf(m[1]!);
  if (log2 < 7 || log2 > 20) return 'the phpass iteration count is outside 2^7..2^20';
  const pw = utf8(password);
  let x = digest('md5', utf8(m[2]!), pw);
  for (let i = 1 << log2; i > 0; i--) x = digest('md5', x, pw);
  return sameBytes(utf8(encode64(x)), utf8(m[3]!));
};

/** Largest scrypt memory (128 * N * r * p bytes) checked at sign-in: Werkzeug's default is 32 MiB. */
const MAX_SCRYPT_BYTES = 256 * 1024 * 1024;

/**
 * Werkzeug's generate_password_hash (werkzeug.security, `_hash_internal`): `<method>$<salt>$<hex>`, the salt used as
 * its UTF-8 text. `scrypt:N:r:p` is hashlib.scrypt(password, salt, n, r, p, dklen 64); `pbkdf2:<digest>:<iterations>`
 * is hashlib.pbkdf2_hmac. Werkzeug always writes the parameters (its defaults changed between versions).
 */
export const werkzeugChecker: Checker = async (legacy, password) => {
  const m = /^(scrypt|pbkdf2)((?::[^$:]*)*)\$([^$]*)\$([0-9a-fA-F]+)$/.exec(legacy.hash.trim());
  const stored = m ? fromHex(m[4]!) : undefined;
  if (!m || !stored) return 'the hash is not a Werkzeug `scrypt:N:r:p$salt$hex` or `pbkdf2:digest:iterations$salt$hex` string';
  const args = m[2]!.split(':').slice(1);
  const salt = utf8(m[3]!);
  if (m[1] === 'scrypt') {
    const [n, r, p] = args.map(Number) as [number, number, number];
    if (args.length !== 3 || ![n, r, p].every((v) => Number.isInteger(v) && v > 0) || (n & (n - 1)) !== 0 || n < 2)
      return 'the Werkzeug scrypt parameters are not N:r:p with N a power of two';
    if (128 * n * r * p > MAX_SCRYPT_BYTES) return 'the Werkzeug scrypt parameters need more memory than a sign-in may use';
    return sameBytes(await scryptBytes(utf8(password), salt, n, r, p, stored.length), stored);
  }
  if (args.length !== 2) return 'the Werkzeug pbkdf2 method does not name its digest and iterations';
  return checkPbkdf2(password, salt, Number(args[1]), stored, digestName(args[0]));
};

/**
 * Clerk's `pbkdf2_sha256`: `pbkdf2_sha256$<iterations>$<base64 salt>$<base64 hash>`, the salt decoded, unlike
 * Django's layout, which is the same string with the salt as text: a record that names a Django hash
 * `pbkdf2_sha256` is checked that way when the decoded salt does not match.
 */
export const clerkPbkdf2Sha256: Checker = async (legacy, password) => {
  const m = /^pbkdf2_sha256\$(\d+)\$([^$]+)\$([^$]+)$/.exec(legacy.hash.trim());
  const stored = m ? fromBase64(m[3]!) : undefined;
  if (!m || !stored) return "the hash is not pbkdf2_sha256$<iterations>$<salt>$<base64 hash> (Clerk's or Django's)";
  const salt = fromBase64(m[2]!);
  const clerk = salt ? await checkPbkdf2(password, salt, Number(m[1]), stored, 'sha256') : false;
  if (clerk !== false) return clerk;
  return checkPbkdf2(password, utf8(m[2]!), Number(m[1]), stored, 'sha256');
};

/**
 * Clerk's `pbkdf2_sha1`: `pbkdf2_sha1$<iterations>$<salt>$<hex hash>` (Django's layout with the key in hex). A key in
 * base64 is Django's own pbkdf2_sha1, checked as such.
 */
export const clerkPbkdf2Sha1: Checker = async (legacy: LegacyPassword, password) => {
  const m = /^pbkdf2_sha1\$(\d+)\$([^$]*)\$([^$]+)$/.exec(legacy.hash.trim());
  if (!m) return "the hash is not Clerk's pbkdf2_sha1$<iterations>$<salt>$<hex hash>";
  const hex = /^(?:[0-9a-f]{2}){20,}$/i.test(m[3]!);
  const stored = hex ? fromHex(m[3]!) : fromBase64(m[3]!);
  if (!stored) return 'the pbkdf2_sha1 key is neither hex nor base64';
  return checkPbkdf2(password, utf8(m[2]!), Number(m[1]), stored, 'sha1');
};

/**
 * Supabase's (GoTrue's) `$fbscrypt$v=1,n=..,r=..,p=..[,ss=..],sk=..$<salt>$<hash>` (supabase/auth
 * internal/crypto/password.go, firebaseScrypt): key = scrypt(password, salt || ss, 2^n, r, p, 32 bytes), hash =
 * AES-256-CTR(key, zero IV) of sk. The readers convert p=1 digests for the core; the rest wait for sign-in here.
 */
export const fbscryptChecker: Checker = async (legacy, password) => {
  const m = /^\$fbscrypt\$v=1,n=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})(?:,ss=([^,$]*))?,sk=([^$]+)\$([^$]+)\$([^$]+)$/.exec(legacy.hash.trim());
  const sk = m ? fromBase64(m[5]!) : undefined;
  const salt = m ? fromBase64(m[6]!) : undefined;
  const stored = m ? fromBase64(m[7]!) : undefined;
  const separator = m?.[4] ? fromBase64(m[4]) : Buffer.alloc(0);
  if (!m || !sk || !salt || !stored || !separator) return 'the hash is not a version 1 $fbscrypt$ string with its signer key';
  const [n, r, p] = [2 ** Number(m[1]), Number(m[2]), Number(m[3])];
  if (n < 2 || r < 1 || p < 1) return 'the $fbscrypt$ parameters are out of range';
  if (128 * n * r * p > MAX_SCRYPT_BYTES) return 'the $fbscrypt$ parameters need more memory than a sign-in may use';
  const key = await scryptBytes(utf8(password), Buffer.concat([salt, separator]), n, r, p, 32);
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16, 0));
  return sameBytes(Buffer.concat([cipher.update(sk), cipher.final()]), stored);
};
