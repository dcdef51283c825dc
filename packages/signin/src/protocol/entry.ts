// The legacy entry of a user waiting for migration at first sign-in: what `auth-migrate run --unusable-hashes
// migrate-at-sign-in` stores in the core's user metadata (under a reserved key, on the email-password login's user
// id) and what the sign-in part reads, checks (mac.ts) and ends. docs/signin-protocol.md states the format.
import type { LegacyPassword } from '../hashes/types.js';

/** The reserved metadata key holding the entry. */
export const LEGACY_ENTRY_KEY = 'auth-migrate:legacy-password';
/** The reserved metadata key saying how and when the entry ended (no secret in it). */
export const LEGACY_DONE_KEY = 'auth-migrate:legacy-done';
/**
 * The reserved metadata key where `run --sync` keeps the entry it replaced or ended, with the placeholder's bcrypt
 * hash when it imported a new password over it: what a rollback of that sync puts back (no secret needed).
 */
export const LEGACY_PREVIOUS_KEY = 'auth-migrate:legacy-previous';

export interface LegacyPrevious {
  entry: LegacyEntry;
  /** The login's password hash before the sync imported another: bcrypt of the placeholder. */
  placeholderHash?: string;
}

/** The entry's fields before signing: what the MAC covers (mac.ts) besides the version. */
export interface UnsignedLegacyEntry extends LegacyPassword {
  /** The source's id of the user: the placeholder password is derived from it (placeholder.ts). */
  sourceId: string;
  /** The login's email as the run imported it. */
  email: string;
  /** When the run stored it (epoch ms): the start of the user's wait. */
  since: number;
  /** `--disabled role:NAME` for a user disabled in the source: while the user has that role, no migration. */
  disabledRole?: string;
}

export interface LegacyEntry extends UnsignedLegacyEntry {
  v: 2;
  /** HMAC-SHA256 of the fields under the run's secret, base64url without padding (mac.ts). */
  mac: string;
}

/**
 * How an entry ended: a sign-in migrated it, a password was set since (reset, change, or found by the placeholder
 * check), the operator expired it, or a sync imported a hash the core can take.
 */
export type LegacyEndedVia = 'sign-in' | 'password-set' | 'expired' | 'sync';

export interface LegacyDone {
  at: number;
  via: LegacyEndedVia;
  algorithm: string;
  since?: number;
  /** The entry's source id (the placeholder is derived from it: the part refuses it for good). */
  sourceId?: string;
}

/** What a metadata value under LEGACY_ENTRY_KEY holds, by shape only: its MAC is checked by mac.ts. */
export type EntryShape = { entry: LegacyEntry } | { invalid: string } | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entry in a metadata object, a reason when the value there is not one, or undefined when there is none. */
export function readLegacyEntry(metadata: Record<string, unknown> | undefined): EntryShape {
  const v = metadata?.[LEGACY_ENTRY_KEY];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) return { invalid: 'the entry is not an object' };
  if (v.v !== 2) return { invalid: `the entry's version is ${JSON.stringify(v.v ?? null).slice(0, 12)}, not 2 (written without a MAC)` };
  for (const k of ['algorithm', 'hash', 'sourceId', 'email', 'mac'] as const)
    if (typeof v[k] !== 'string') return { invalid: `the entry's ${k} is not a string` };
  if (typeof v.since !== 'number' || !Number.isSafeInteger(v.since)) return { invalid: "the entry's since is not an integer" };
  if (v.salt !== undefined && typeof v.salt !== 'string') return { invalid: "the entry's salt is not a string" };
  if (v.disabledRole !== undefined && typeof v.disabledRole !== 'string') return { invalid: "the entry's disabledRole is not a string" };
  if (v.params !== undefined) {
    if (!isObject(v.params)) return { invalid: "the entry's params is not an object" };
    for (const [k, p] of Object.entries(v.params))
      if (typeof p !== 'string' && !(typeof p === 'number' && Number.isFinite(p)))
        return { invalid: `the entry's params.${k.slice(0, 40)} is not a string or a number` };
  }
  return { entry: v as unknown as LegacyEntry };
}

export function readLegacyDone(metadata: Record<string, unknown> | undefined): LegacyDone | undefined {
  const v = metadata?.[LEGACY_DONE_KEY];
  return isObject(v) && typeof v.via === 'string' ? (v as unknown as LegacyDone) : undefined;
}

/** The metadata update that ends an entry: the key removed (null) and the done marker set, in one write. */
export function endingUpdate(
  entry: Pick<LegacyEntry, 'algorithm' | 'since' | 'sourceId'>,
  via: LegacyEndedVia,
  at: number,
): Record<string, unknown> {
  const done: LegacyDone = { at, via, algorithm: entry.algorithm, since: entry.since, sourceId: entry.sourceId };
  return { [LEGACY_ENTRY_KEY]: null, [LEGACY_DONE_KEY]: done };
}
