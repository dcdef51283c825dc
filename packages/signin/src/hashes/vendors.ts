// Checkers for vendor forms that need a setting kept outside the record: Firebase's non-scrypt algorithms (the
// project's hash config: the HMAC key, rounds, input order, standard scrypt's costs) and Spring Security's
// encoders (an optional secret, the "pepper"). Settings come from the app's configuration, never from the file.
import bcrypt from 'bcryptjs';
import type { LegacyPassword } from './types.js';
import { sameBytes } from './constant-time.js';
import { type Digest, digest, digestName, fromBase64, fromHex, hmac, md4Digest, pbkdf2, scryptBytes, utf8 } from './digests.js';
import type { Checker, CheckResult } from './families.js';

/** A Firebase project's hash config (the console's "Password hash parameters", or the one the users were imported with). */
export interface FirebaseHashSettings {
  /** base64 key of the HMAC algorithms (`base64_signer_key`). */
  signerKey?: string;
  /** Rounds of the MD5/SHA and PBKDF algorithms (the hash config's `rounds`; a record's own `params.rounds` wins). */
  rounds?: number;
  /** `SALT_FIRST` (the default) or `PASSWORD_FIRST`: the order `firebase auth:import --hash-input-order` names. */
  hashInputOrder?: 'SALT_FIRST' | 'PASSWORD_FIRST';
  /** STANDARD_SCRYPT: N (memory cost), r (block size), p (parallelization) and the key length. */
  memoryCost?: number;
  blockSize?: number;
  parallelization?: number;
  derivedKeyLength?: number;
}

export interface SpringSettings {
  /** The secret (pepper) the app's Pbkdf2PasswordEncoder or StandardPasswordEncoder was built with; default none. */
  secret?: string;
}

const param = (legacy: LegacyPassword, key: string): string | number | undefined => legacy.params?.[key];

function ordered(settings: FirebaseHashSettings, salt: Buffer, pw: Buffer): Buffer[] {
  return settings.hashInputOrder === 'PASSWORD_FIRST' ? [pw, salt] : [salt, pw];
}

/** `firebase_<algorithm>` as the Firebase reader names it, checked with the project's settings. */
export function firebaseChecker(name: string, settings: FirebaseHashSettings | undefined): Checker | undefined {
  const algorithm = name.replace(/^firebase_/, '').toUpperCase();
  const fb = settings ?? {};
  const inputs = (legacy: LegacyPassword) => ({
    salt: fromBase64(legacy.salt ?? '') ?? Buffer.alloc(0),
    stored: fromBase64(legacy.hash),
  });
  const hmacMatch = /^HMAC_(MD5|SHA1|SHA256|SHA512)$/.exec(algorithm);
  if (hmacMatch) {
    const d = digestName(hmacMatch[1]) as Digest;
    return async (legacy, password) => {
      if (!fb.signerKey) return `${algorithm} needs the project's base64_signer_key (firebase.signerKey)`;
      const { salt, stored } = inputs(legacy);
      if (!stored) return 'the Firebase hash is not base64';
      return sameBytes(hmac(d, Buffer.from(fb.signerKey, 'base64'), ...ordered(fb, salt, utf8(password))), stored);
    };
  }
  const plain = /^(MD5|SHA1|SHA256|SHA512)$/.exec(algorithm);
  if (plain) {
    const d = digestName(plain[1]) as Digest;
    return async (legacy, password) => {
      const { salt, stored } = inputs(legacy);
      if (!stored) return 'the Firebase hash is not base64';
      const rounds = Math.max(1, Number(param(legacy, 'rounds') ?? fb.rounds ?? 1));
      if (!Number.isInteger(rounds) || rounds > 100_000) return 'the Firebase rounds are out of range';
      let h = digest(d, ...ordered(fb, salt, utf8(password)));
      for (let i = 1; i < rounds; i++) h = digest(d, h);
      return sameBytes(h, stored);
    };
  }
  if (algorithm === 'PBKDF_SHA1' || algorithm === 'PBKDF2_SHA256') {
    return async (legacy, password) => {
      const { salt, stored } = inputs(legacy);
      if (!stored) return 'the Firebase hash is not base64';
      const rounds = Number(param(legacy, 'rounds') ?? fb.rounds);
      if (!Number.isInteger(rounds) || rounds < 1) return `${algorithm} needs the rounds of the hash config`;
      const d: Digest = algorithm === 'PBKDF_SHA1' ? 'sha1' : 'sha256';
      return sameBytes(await pbkdf2(utf8(password), salt, rounds, stored.length, d), stored);
    };
  }
  if (algorithm === 'BCRYPT') {
    return async (legacy, password) => {
      const text = legacy.hash.startsWith('$2') ? legacy.hash : (fromBase64(legacy.hash)?.toString('utf8') ?? '');
      if (!/^\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}$/.test(text)) return 'the Firebase BCRYPT hash is not a bcrypt string';
      return bcrypt.compare(password, '$2a' + text.slice(3));
    };
  }
  if (algorithm === 'STANDARD_SCRYPT') {
    return async (legacy, password) => {
      const { salt, stored } = inputs(legacy);
      if (!stored) return 'the Firebase hash is not base64';
      const n = Number(fb.memoryCost);
      const r = Number(fb.blockSize ?? 8);
      const p = Number(fb.parallelization ?? 1);
      if (!Number.isInteger(n) || n < 2 || (n & (n - 1)) !== 0)
        return 'STANDARD_SCRYPT needs the memory cost (a power of two) of the hash config';
      return sameBytes(await scryptBytes(utf8(password), salt, n, r, p, fb.derivedKeyLength ?? stored.length), stored);
    };
  }
  return undefined;
}

/** Spring's Pbkdf2PasswordEncoder: hex (or base64) of salt || PBKDF2(password, salt || secret). */
async function springPbkdf2(legacy: LegacyPassword, password: string, spring: SpringSettings): Promise<CheckResult> {
  const raw = fromHex(legacy.hash) ?? fromBase64(legacy.hash);
  if (!raw) return 'the Spring pbkdf2 value is neither hex nor base64';
  // Spring 5.x's defaults (8-byte salt, 185000 iterations, SHA-1, 256 bits: 40 bytes) or 5.8's (16, 310000, SHA-256: 48).
  const modern = raw.length === 48;
  const saltLength = Number(param(legacy, 'saltLength') ?? (modern ? 16 : 8));
  const iterations = Number(param(legacy, 'iterations') ?? (modern ? 310000 : 185000));
  const algorithm = digestName(param(legacy, 'algorithm') ?? (modern ? 'sha256' : 'sha1'));
  if (!algorithm || raw.length <= saltLength || !Number.isInteger(iterations) || iterations < 1)
    return 'the Spring pbkdf2 settings do not fit the value';
  const salt = raw.subarray(0, saltLength);
  const key = Buffer.concat([salt, utf8(spring.secret ?? '')]);
  const stored = raw.subarray(saltLength);
  return sameBytes(await pbkdf2(utf8(password), key, iterations, stored.length, algorithm), stored);
}

/** Spring's StandardPasswordEncoder (`{sha256}`): hex of salt(8) || SHA-256 applied 1024 times to salt || secret || password. */
function springSha256(legacy: LegacyPassword, password: string, spring: SpringSettings): CheckResult {
  const raw = fromHex(legacy.hash);
  if (!raw || raw.length !== 40) return 'the Spring {sha256} value is not 80 hex digits';
  const salt = raw.subarray(0, 8);
  let h = digest('sha256', salt, utf8(spring.secret ?? ''), utf8(password));
  for (let i = 1; i < 1024; i++) h = digest('sha256', h);
  return sameBytes(h, raw.subarray(8));
}

/** Spring's Md4PasswordEncoder (`{MD4}`): `{salt}` then hex MD4 of password + `{salt}`; without a salt, hex MD4. */
async function springMd4(legacy: LegacyPassword, password: string): Promise<CheckResult> {
  const m = /^(\{[^}]*\})?([0-9a-fA-F]{32})$/.exec(legacy.hash);
  if (!m) return 'the Spring {MD4} value is not an optional {salt} and 32 hex digits';
  return sameBytes(await md4Digest(utf8(password + (m[1] ?? ''))), Buffer.from(m[2]!, 'hex'));
}

/** Spring's SCryptPasswordEncoder (`{scrypt}`): `$<hex log2N|r|p>$<base64 salt>$<base64 key>`. */
async function springScrypt(legacy: LegacyPassword, password: string): Promise<CheckResult> {
  const m = /^\$([0-9a-fA-F]+)\$([^$]+)\$([^$]+)$/.exec(legacy.hash);
  const salt = m ? fromBase64(m[2]!) : undefined;
  const stored = m ? fromBase64(m[3]!) : undefined;
  if (!m || !salt || !stored) return 'the Spring {scrypt} value is not $params$salt$key';
  const params = parseInt(m[1]!, 16);
  const n = 2 ** ((params >> 16) & 0xffff);
  const r = (params >> 8) & 0xff;
  const p = params & 0xff;
  if (n < 2 || n > 2 ** 22 || r < 1 || p < 1) return 'the Spring {scrypt} parameters are out of range';
  return sameBytes(await scryptBytes(utf8(password), salt, n, r, p, stored.length), stored);
}

export function springChecker(spring: SpringSettings | undefined): Checker {
  return async (legacy, password) => {
    const id = String(param(legacy, 'id') ?? '').toLowerCase();
    if (id === 'pbkdf2') return springPbkdf2(legacy, password, spring ?? {});
    if (id === 'sha256') return springSha256(legacy, password, spring ?? {});
    if (id === 'md4') return springMd4(legacy, password);
    if (id === 'scrypt') return springScrypt(legacy, password);
    if (id === 'noop') return sameBytes(utf8(password), utf8(legacy.hash));
    return `the Spring encoder {${id.slice(0, 10)}} has no checker`;
  };
}
