// The MAC that proves the migration wrote a legacy entry: HMAC-SHA256, keyed by the secret the operator gives the
// run (AUTH_MIGRATE_SIGNIN_SECRET) and the app (withLegacySignIn({ secret })), over every field the sign-in acts
// on, each length-prefixed so no two entries share a message. docs/signin-protocol.md §2 states it byte by byte.
import { createHmac } from 'node:crypto';
import { sameBytes } from '../hashes/constant-time.js';
import type { LegacyEntry, UnsignedLegacyEntry } from './entry.js';

/** The environment variable the CLI reads the secret from (never a flag or a file). */
export const SIGNIN_SECRET_ENV = 'AUTH_MIGRATE_SIGNIN_SECRET';
/** The shortest secret taken: 32 characters (`openssl rand -base64 32` gives 44). */
export const MIN_SECRET_LENGTH = 32;

/** Why a secret cannot be used (never echoing it), or undefined when it can. */
export function secretProblem(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return `no secret given (${SIGNIN_SECRET_ENV})`;
  if (secret.length < MIN_SECRET_LENGTH) return `the secret is too short (${secret.length} of at least ${MIN_SECRET_LENGTH} characters)`;
  return undefined;
}

const DOMAIN = 'auth-migrate-signin/entry/v2';

/** One field: its bytes (text as UTF-8) after their length as a 4-byte big-endian integer. */
function field(value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A number as the MAC writes it: an integer in decimal, any other finite number as ECMAScript's Number::toString. */
const numberText = (n: number): string => (Number.isSafeInteger(n) ? n.toFixed(0) : String(n));

/** The email as the MAC takes it: ASCII A-Z lower-cased, nothing else changed (the core may keep either case). */
export const macEmail = (email: string): string => email.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The parameters: keys in ascending order of their UTF-8 bytes, each key then `s:`/`n:` and the value. */
function paramsBytes(params: Record<string, string | number> | undefined): Buffer {
  const keys = Object.keys(params ?? {}).sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  return Buffer.concat(
    keys.map((k) => {
      const v = params![k]!;
      return Buffer.concat([field(k), field(typeof v === 'number' ? `n:${numberText(v)}` : `s:${v}`)]);
    }),
  );
}

/** The message the MAC is computed over (exported for the protocol's test vectors). */
export function macMessage(e: UnsignedLegacyEntry): Buffer {
  return Buffer.concat([
    field(DOMAIN),
    field(e.sourceId),
    field(macEmail(e.email)),
    field(e.algorithm),
    field(e.hash),
    field(e.salt ?? ''),
    field(paramsBytes(e.params)),
    field(numberText(e.since)),
    field(e.disabledRole ?? ''),
  ]);
}

export function entryMac(secret: string, e: UnsignedLegacyEntry): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(macMessage(e)).digest('base64url');
}

/** The entry as the run stores it: the fields, the version and their MAC. */
export function signEntry(secret: string, e: UnsignedLegacyEntry): LegacyEntry {
  const out: LegacyEntry = { v: 2, sourceId: e.sourceId, email: e.email, algorithm: e.algorithm, hash: e.hash, since: e.since, mac: '' };
  if (e.salt !== undefined) out.salt = e.salt;
  if (e.params !== undefined) out.params = e.params;
  if (e.disabledRole !== undefined) out.disabledRole = e.disabledRole;
  out.mac = entryMac(secret, out);
  return out;
}

/**
 * Whether the entry's MAC is right for the login it was found on: `email` is that login's email in the core, so an
 * entry copied to another login, or any field changed, fails. Constant-time.
 */
export function entryMacValid(secret: string, entry: LegacyEntry, email: string): boolean {
  const expected = Buffer.from(entryMac(secret, { ...entry, email }), 'utf8');
  return sameBytes(expected, Buffer.from(entry.mac, 'utf8'));
}
