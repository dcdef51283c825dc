// Recognise password hash formats the way the reference core does (prefix checks, the 7-part external
// scrypt string), and strip the prefixes that exporting systems prepend.
import type { PasswordAlgorithm } from '../records/types.js';

export interface ExternalScryptParams {
  /** The exported hash (base64) exactly as written in the string. */
  passwordHash: string;
  salt: string;
  memCost: number;
  rounds: number;
  saltSeparator: string;
}

export const EXTERNAL_SCRYPT_PREFIX = 'f_scrypt';

/**
 * Parse `$f_scrypt$<hash>$<salt>$m=<mem>$r=<rounds>$s=<sep>` as the reference core does: split on `$`
 * (trailing empty parts dropped), exactly 7 parts, m/r/s in any order, m and r integers. `null` if not.
 */
export function parseExternalScrypt(hash: string): ExternalScryptParams | null {
  const parts = hash.split('$');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length !== 7 || parts[0] !== '' || parts[1] !== EXTERNAL_SCRYPT_PREFIX) return null;
  let memCost: number | undefined;
  let rounds: number | undefined;
  let saltSeparator: string | undefined;
  for (const part of parts.slice(4)) {
    if (part.startsWith('m=')) memCost = parseJavaInt(part.slice(2));
    else if (part.startsWith('r=')) rounds = parseJavaInt(part.slice(2));
    else if (part.startsWith('s=')) saltSeparator = part.slice(2);
    else return null;
  }
  if (memCost === undefined || rounds === undefined || saltSeparator === undefined) return null;
  return { passwordHash: parts[2]!, salt: parts[3]!, memCost, rounds, saltSeparator };
}

/** Java's Integer.parseInt: optional sign, decimal digits, 32-bit range. */
function parseJavaInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

export function buildExternalScrypt(p: ExternalScryptParams): string {
  return `$${EXTERNAL_SCRYPT_PREFIX}$${p.passwordHash}$${p.salt}$m=${p.memCost}$r=${p.rounds}$s=${p.saltSeparator}`;
}

export function isBcryptPrefix(hash: string): boolean {
  return hash.startsWith('$2a') || hash.startsWith('$2b') || hash.startsWith('$2x') || hash.startsWith('$2y');
}

export function isArgon2Prefix(hash: string): boolean {
  return hash.startsWith('$argon2id') || hash.startsWith('$argon2i') || hash.startsWith('$argon2d');
}

/** The reference core's auto-detection: external scrypt first, then bcrypt or argon2 by prefix. */
export function detectAlgorithm(hash: string): PasswordAlgorithm | null {
  if (parseExternalScrypt(hash)) return 'external_scrypt';
  if (isBcryptPrefix(hash)) return 'bcrypt';
  if (isArgon2Prefix(hash)) return 'argon2';
  return null;
}

/**
 * `hashingAlgorithm` as the core reads it: trimmed, upper-cased; the mission's `external_scrypt` and the
 * reference core's `firebase_scrypt` both name the scrypt variant. `null` when unsupported.
 */
export function parseHashingAlgorithmName(name: string): PasswordAlgorithm | null {
  switch (name.trim().toUpperCase()) {
    case 'BCRYPT':
      return 'bcrypt';
    case 'ARGON2':
      return 'argon2';
    case 'FIREBASE_SCRYPT':
    case 'EXTERNAL_SCRYPT':
      return 'external_scrypt';
    default:
      return null;
  }
}

/**
 * Prefixes that exporting systems (Spring, Django, ...) put before a standard hash string, and that only say how
 * the hash is written: removed, the same hash of the same password remains. A prefix that changes what was hashed
 * (Django's `bcrypt_sha256$`: bcrypt of the SHA-256 of the password) is never stripped (WRAPPING_PREFIXES).
 */
const EXPORTER_PREFIXES: Array<{ pattern: RegExp; label: string }> = [
  { pattern: /^\{bcrypt\}(?=\$2[abxy]\$)/, label: '{bcrypt}' },
  { pattern: /^\{argon2(?:id|i|d)?\}(?=\$argon2)/, label: '{argon2}' },
  { pattern: /^bcrypt\$(?=\$2[abxy]\$)/, label: 'bcrypt$' },
  { pattern: /^argon2(?=\$argon2(?:id|i|d)\$)/, label: 'argon2' },
];

/** Prefixes of hashes of something other than the password itself: the core would check the password against them. */
export const WRAPPING_PREFIXES: Array<{ pattern: RegExp; label: string; what: string }> = [
  {
    pattern: /^bcrypt_sha256\$/,
    label: 'bcrypt_sha256$',
    what: "Django's bcrypt_sha256 hashes bcrypt the SHA-256 of the password, not the password",
  },
];

/** Remove one exporter prefix, returning what was removed so the operator can be told. */
export function stripExporterPrefix(hash: string): { hash: string; stripped?: string } {
  for (const { pattern, label } of EXPORTER_PREFIXES) {
    if (pattern.test(hash)) return { hash: hash.replace(pattern, ''), stripped: label };
  }
  return { hash };
}
