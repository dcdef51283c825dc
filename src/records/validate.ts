// Validation of canonical records: per-record rules, cross-record duplicate checks in bounded memory,
// a summary for the preview screen and `validate`, and a second streaming pass for the runner.
import type { ReadOptions } from '../sources/index.js';
import type { CanonicalUser, Problem, RecordOrigin, SourceRecord } from './types.js';

export interface ValidateOptions {
  signerKey?: string;
}

export interface ValidatedRecord {
  /** Normalised, ready to plan. */
  record: CanonicalUser;
  origin: RecordOrigin;
  problems: Problem[];
  valid: boolean;
}

export interface Validator {
  add(item: SourceRecord): ValidatedRecord;
  /** Cross-record problems only knowable at the end (they name the earlier record). */
  finish(): Problem[];
}

export interface ValidationSummary {
  records: number;
  valid: number;
  invalid: number;
  errors: number;
  warnings: number;
  passwordUsers: Record<'bcrypt' | 'argon2' | 'external_scrypt', number>;
  thirdPartyUsers: Record<string, number>;
  phoneSignInUsers: number;
  totpDevices: number;
  emailFactors: number;
  smsFactors: number;
}

export interface ValidationReport {
  summary: ValidationSummary;
  problems: Problem[];
  problemsOmitted: number;
  invalidKeys: Set<string>;
}

export function originKey(origin: RecordOrigin): string {
  return `${origin.file}\u0000${origin.line ?? ''}\u0000${origin.index ?? ''}`;
}

export function createValidator(_options: ValidateOptions = {}): Validator {
  throw new Error('not implemented yet');
}

export async function validateSources(
  _paths: string[],
  _options: ReadOptions & ValidateOptions & { onRecord?: (r: ValidatedRecord) => void; maxProblems?: number },
): Promise<ValidationReport> {
  throw new Error('not implemented yet');
}

export async function* streamValidatedRecords(
  _paths: string[],
  _options: ReadOptions & ValidateOptions,
  _report: ValidationReport,
): AsyncIterable<ValidatedRecord> {
  throw new Error('not implemented yet');
}
