// The legacy entry of a user waiting for migration at first sign-in: what `run --unusable-hashes
// migrate-at-sign-in` stores in the core's user metadata (under a reserved key, on the email-password login's
// user id) and what the sign-in part reads, checks and removes. docs/migration.md §6a says why metadata.
import { randomBytes } from 'node:crypto';
import type { CanonicalLegacyPassword, CanonicalUser } from '../records/types.js';

/** The reserved metadata key holding the entry. */
export const LEGACY_ENTRY_KEY = 'auth-migrate:legacy-password';
/** The reserved metadata key saying how and when the entry ended (no secret in it). */
export const LEGACY_DONE_KEY = 'auth-migrate:legacy-done';

export interface LegacyEntry extends CanonicalLegacyPassword {
  v: 1;
  /** The source's id of the user. */
  sourceId: string;
  /** When the run stored it (epoch ms): the start of the user's wait. */
  since: number;
  /** `--disabled role:NAME` for a user disabled in the source: while the user has that role, no migration. */
  disabledRole?: string;
}

export type LegacyEndedVia = 'sign-in' | 'password-set' | 'expired';

export interface LegacyDone {
  at: number;
  via: LegacyEndedVia;
  algorithm: string;
  since?: number;
}

/** The entry for a record the run imports under `migrate-at-sign-in`, or undefined when it has no legacy hash. */
export function legacyEntryFor(record: CanonicalUser, disabledRole: string | undefined, since: number): LegacyEntry | undefined {
  const legacy = record.legacyPassword;
  if (!legacy || record.password || record.email === undefined) return undefined;
  const entry: LegacyEntry = { v: 1, sourceId: record.id, since, algorithm: legacy.algorithm, hash: legacy.hash };
  if (legacy.salt !== undefined) entry.salt = legacy.salt;
  if (legacy.params !== undefined) entry.params = legacy.params;
  if (record.disabled && disabledRole !== undefined) entry.disabledRole = disabledRole;
  return entry;
}

/** The entry in a metadata object, when it is one (a hand-edited value that is not is ignored, never guessed). */
export function readLegacyEntry(metadata: Record<string, unknown> | undefined): LegacyEntry | undefined {
  const v = metadata?.[LEGACY_ENTRY_KEY];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const e = v as Record<string, unknown>;
  if (typeof e.algorithm !== 'string' || typeof e.hash !== 'string' || typeof e.sourceId !== 'string') return undefined;
  return e as unknown as LegacyEntry;
}

export function readLegacyDone(metadata: Record<string, unknown> | undefined): LegacyDone | undefined {
  const v = metadata?.[LEGACY_DONE_KEY];
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as LegacyDone).via === 'string'
    ? (v as LegacyDone)
    : undefined;
}

/** The metadata update that ends an entry: the key removed (null) and the done marker set, in one write. */
export function endingUpdate(entry: LegacyEntry, via: LegacyEndedVia, at: number): Record<string, unknown> {
  const done: LegacyDone = { at, via, algorithm: entry.algorithm, since: entry.since };
  return { [LEGACY_ENTRY_KEY]: null, [LEGACY_DONE_KEY]: done };
}

const BCRYPT64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A bcrypt string no password matches: random salt and random checksum (184 random bits; finding a password
 * for it is a preimage attack on bcrypt). The core imports it like any bcrypt hash and spends its usual bcrypt
 * time on every sign-in, so a waiting user's wrong password costs what anyone's does. Cost 11 is the core's
 * default `bcrypt_log_rounds`.
 */
export function unusableBcryptHash(): string {
  const bytes = randomBytes(53);
  let tail = '';
  for (const b of bytes) tail += BCRYPT64[b & 63];
  return `$2a$11$${tail}`;
}
