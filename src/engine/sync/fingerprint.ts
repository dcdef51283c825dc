// A user's fingerprint, kept in the journal so that a later `run --sync` can tell which users changed in a newer
// export, and which parts of them, without a request to the core and without the journal holding any value
// (docs/migration.md, "Two-pass cutover"). Per user: 8 bytes of SHA-256 over every part under the journal's
// random key (detects any change: a miss is a 2^-64 event), then 2 bytes per part from a keyed 32-bit hash
// (says which part changed; 65,536 values, so a part's 2 bytes match one email in 65,536 of any list and name
// none of them). Hashes and TOTP secrets only ever enter the SHA-256, never a journal line.
// Invariant: hashes and TOTP secrets only ever enter the keyed SHA-256; a journal line never holds a value.
import crypto, { createHash, randomBytes } from 'node:crypto';
import type { CanonicalTotp, CanonicalUser } from '../../records/types.js';
import { detectAlgorithm } from '../../hashes/formats.js';
import { toBase32Secret } from '../../records/secrets.js';
import { DEFAULT_TOTP_PERIOD, DEFAULT_TOTP_SKEW, deviceNames, roleAssignments } from '../plan/plan.js';

/** The parts of a user a sync tells apart, in their order in the fingerprint. */
export const PARTS = [
  'password',
  'email',
  'verified',
  'phone',
  'thirdParty',
  'totp',
  'otp',
  'metadata',
  'roles',
  'disabled',
  'externalId',
] as const;
export type Part = (typeof PARTS)[number];

const WHOLE_BYTES = 8;
const PART_BYTES = 2;
export const FINGERPRINT_BYTES = WHOLE_BYTES + PART_BYTES * PARTS.length;
/** Length of the journal's text form (unpadded base64url). */
export const FINGERPRINT_CHARS = Math.ceil((FINGERPRINT_BYTES * 4) / 3);

/** A fresh per-journal key (written in the journal's run header as base64url). */
export function newFingerprintKey(): string {
  return randomBytes(32).toString('base64url');
}

const ABSENT = '\u0002';

/** Keys sorted at every level, so that the same metadata always serialises the same way. */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}

function secretOf(d: CanonicalTotp): string {
  try {
    return toBase32Secret(d.secret, d.encoding ?? 'base32');
  } catch {
    return `raw:${d.secret}`; // an invalid secret (the record is invalid): still told apart from another
  }
}

/** Each part as a string (ABSENT when the record has none), in PARTS order. Values of a validated record. */
export function partValues(r: CanonicalUser): string[] {
  const sep = '\u0000';
  const password = r.password
    ? `${r.password.algorithm ?? detectAlgorithm(r.password.hash) ?? '?'}${sep}${r.password.hash}`
    : r.legacyPassword
      ? `legacy${sep}${r.legacyPassword.algorithm}${sep}${r.legacyPassword.hash}${sep}${r.legacyPassword.salt ?? ''}${sep}${stableJson(r.legacyPassword.params ?? {})}`
      : ABSENT;
  const thirdParty = r.thirdParty?.length
    ? r.thirdParty
        .map((t) => [t.providerId, t.userId, t.email ?? '', String(t.emailVerified ?? '')].join(sep))
        .sort()
        .join('\u0001')
    : ABSENT;
  let totp = ABSENT;
  if (r.totp?.length) {
    const names = deviceNames(r);
    totp = r.totp
      .map((d, i) => [names[i], secretOf(d), d.period ?? DEFAULT_TOTP_PERIOD, d.skew ?? DEFAULT_TOTP_SKEW].join(sep))
      .sort()
      .join('\u0001');
  }
  const otp =
    r.otpFactors && (r.otpFactors.email || r.otpFactors.phoneNumber)
      ? `${r.otpFactors.email ?? ''}${sep}${r.otpFactors.phoneNumber ?? ''}`
      : ABSENT;
  const metadata = r.metadata && Object.keys(r.metadata).length > 0 ? stableJson(r.metadata) : ABSENT;
  const roles = r.roles?.length
    ? roleAssignments(r)
        .map((a) => `${a.tenantId ?? ''}${sep}${a.role}`)
        .sort()
        .join('\u0001')
    : ABSENT;
  return [
    password,
    r.email ?? ABSENT,
    r.emailVerified === true ? '1' : '0',
    r.phoneNumber ?? ABSENT,
    thirdParty,
    totp,
    otp,
    metadata,
    roles,
    r.disabled === true ? '1' : '0',
    r.externalUserId ?? ABSENT,
  ];
}

/** A keyed 32-bit hash (FNV-1a over UTF-16 units from a keyed seed, then murmur3's finaliser): cheap, per part. */
function partHash(seed: number, s: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= s.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One-shot hashing (Node 20.12+) costs about half of a Hash object's. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;
const sha256 = (text: string): Buffer => (oneShot ? oneShot('sha256', text, 'buffer') : createHash('sha256').update(text).digest());

/** A journal's fingerprint key, ready to use: its bytes and one seed per part. */
export interface FingerprintKey {
  readonly text: string;
  readonly bytes: Buffer;
  readonly seeds: Uint32Array;
}

export function fingerprintKey(text: string): FingerprintKey {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length < 16) throw new Error('a fingerprint key has at least 16 bytes');
  const seeds = new Uint32Array(PARTS.length);
  const derived = createHash('sha256').update(bytes).update('auth-migrate part seeds').digest();
  for (let i = 0; i < PARTS.length; i++) seeds[i] = derived.readUInt32LE((i * 4) % 28) ^ Math.imul(i + 1, 0x9e3779b1);
  return { text, bytes, seeds };
}

/** The fingerprint of a (validated, normalised) record, as its 30 bytes. */
export function fingerprintBytes(record: CanonicalUser, key: FingerprintKey): Buffer {
  const parts = partValues(record);
  const out = Buffer.allocUnsafe(FINGERPRINT_BYTES);
  let text = key.text;
  for (const p of parts) text += `${p.length}:${p}`;
  sha256(text).copy(out, 0, 0, WHOLE_BYTES);
  for (let i = 0; i < parts.length; i++) out.writeUInt16LE(partHash(key.seeds[i]!, parts[i]!) & 0xffff, WHOLE_BYTES + i * PART_BYTES);
  return out;
}

/** The fingerprint as the journal writes it (40 characters of base64url). */
export function fingerprint(record: CanonicalUser, key: FingerprintKey): string {
  return fingerprintBytes(record, key).toString('base64url');
}

/** The 30 bytes of a journal's fingerprint text, or undefined when it is not one (an older or foreign line). */
export function decodeFingerprint(text: string): Buffer | undefined {
  if (text.length !== FINGERPRINT_CHARS) return undefined;
  const b = Buffer.from(text, 'base64url');
  return b.length === FINGERPRINT_BYTES ? b : undefined;
}

/**
 * The parts that differ between two fingerprints: none when the whole matches; every part when the whole differs
 * but no part's 2 bytes do (a changed part whose 2 bytes happen to match: 1 in 65,536), so nothing is missed.
 */
export function changedParts(before: Uint8Array, after: Uint8Array): Part[] {
  let same = true;
  for (let i = 0; i < WHOLE_BYTES; i++) if (before[i] !== after[i]) same = false;
  if (same) return [];
  const out: Part[] = [];
  for (let i = 0; i < PARTS.length; i++) {
    const at = WHOLE_BYTES + i * PART_BYTES;
    if (before[at] !== after[at] || before[at + 1] !== after[at + 1]) out.push(PARTS[i]!);
  }
  return out.length > 0 ? out : [...PARTS];
}
