// The canonical user record: every reader produces it, the validator checks it, the planner consumes it.
import type { LegacyPassword } from 'auth-migrate-signin/protocol';

export type PasswordAlgorithm = 'bcrypt' | 'argon2' | 'external_scrypt';
export type SecretEncoding = 'base32' | 'base64' | 'hex';

export interface CanonicalPassword {
  hash: string;
  /** Detected from the hash when absent. */
  algorithm?: PasswordAlgorithm;
}

export interface CanonicalThirdParty {
  providerId: string;
  userId: string;
  email?: string;
  emailVerified?: boolean;
}

export interface CanonicalTotp {
  secret: string;
  /** Default base32. */
  encoding?: SecretEncoding;
  /** Default 30. */
  period?: number;
  /** Default 1. */
  skew?: number;
  deviceName?: string;
  /** Source-side parameters the core cannot represent (only SHA1 / 6 digits are supported). */
  algorithm?: string;
  digits?: number;
}

export interface CanonicalOtpFactors {
  email?: string;
  phoneNumber?: string;
}

/** A role to assign: a name (on the run's tenant) or a name with the tenants it holds on. */
export type CanonicalRole = string | { role: string; tenantIds?: string[] };

/**
 * A hash the core cannot take (md5, sha-256, pbkdf2, Firebase HMAC, ...): carried only to the sign-in
 * migration file, where the app's backend checks it once at first sign-in (docs/migration.md). The type is the
 * sign-in package's (auth-migrate-signin/protocol), whose checkers take it.
 */
export type CanonicalLegacyPassword = LegacyPassword;

export interface CanonicalUser {
  /** Source id: required, unique in a run. */
  id: string;
  email?: string;
  emailVerified?: boolean;
  /** The id the core should keep for this user (a user id mapping). */
  externalUserId?: string;
  password?: CanonicalPassword;
  thirdParty?: CanonicalThirdParty[];
  /** Phone sign-in: a passwordless first factor. */
  phoneNumber?: string;
  totp?: CanonicalTotp[];
  /** Email or SMS one-time-code second factors. */
  otpFactors?: CanonicalOtpFactors;
  timeJoined?: number;
  /** Disabled or blocked in the source: handled by the run's `--disabled` choice, never silently re-enabled. */
  disabled?: boolean;
  /** Merged into the core's user metadata (top-level keys replaced, a key set to null removed). */
  metadata?: Record<string, unknown>;
  /** Roles assigned in the core (created once per run). */
  roles?: CanonicalRole[];
  /** A password hash the core cannot import (see CanonicalLegacyPassword). */
  legacyPassword?: CanonicalLegacyPassword;
}

/** Where a record came from, so every message can name it. */
export interface RecordOrigin {
  file: string;
  /** 1-based line for line-oriented files (NDJSON, CSV, otpauth lists). */
  line?: number;
  /** 0-based position in a JSON array. */
  index?: number;
}

export type Severity = 'error' | 'warning';

/** One finding about one record (or one line of a file that could not become a record). */
export interface Problem {
  severity: Severity;
  /** Stable machine name of the rule, e.g. `email.syntax`, `password.bcrypt.cost`. */
  rule: string;
  origin: RecordOrigin;
  /** Source id of the record, when known. */
  sourceId?: string;
  /** Dotted path of the field, e.g. `totp[0].secret`. */
  field?: string;
  /** What is wrong and what to do. Never contains a secret or a password hash. */
  message: string;
}

/** A record as read from a source, with the problems the reader itself found. */
export interface SourceRecord {
  record: CanonicalUser;
  origin: RecordOrigin;
  problems: Problem[];
}

export function describeOrigin(origin: RecordOrigin): string {
  if (origin.line !== undefined) return `${origin.file}:${origin.line}`;
  if (origin.index !== undefined) return `${origin.file}[${origin.index}]`;
  return origin.file;
}

/** `file:line (id u1) field totp[0].secret: message` — the one format every renderer uses. */
export function formatProblem(p: Problem): string {
  const who = p.sourceId !== undefined ? ` (id ${p.sourceId})` : '';
  const field = p.field ? ` ${p.field}` : '';
  return `${p.severity}: ${describeOrigin(p.origin)}${who}${field}: ${p.message}`;
}
