// Validation of canonical records: per-record rules, cross-record duplicate checks in bounded memory,
// a summary for the preview screen and `validate`, and a second streaming pass for the runner.
import { statSync } from 'node:fs';
import type { UnusableHashPolicy } from './legacy-rules.js';
import { FieldReport, readSources, SourceFindings, type DroppedClass, type FieldSummary, type ReadOptions } from '../sources/index.js';
import type { ClashLog } from './clash-log.js';
import { createCrossRecordIndex } from './cross-record.js';
import { lateVerdicts, originKey, type LateVerdicts } from './late-verdicts.js';
import { base64Length } from './password-rules.js';
import { checkRecord, type RecordRuleOptions } from './record-rules.js';
import type { RuleContext } from './rule-context.js';
import { countProblems, countRecord, emptySummary } from './summary.js';
import { type CanonicalUser, type Problem, type RecordOrigin, type SourceRecord } from './types.js';

export interface ValidateOptions {
  /** base64 signer key of the external scrypt variant: lets validation catch hashes that can never verify. */
  signerKey?: string;
  /** Users whose hash the core cannot take (legacy-rules.ts): `skip` (default) or `without-password`. */
  unusableHashes?: UnusableHashPolicy;
  /** How `run` treats disabled users (`--disabled`): only what the warnings say (default skip). */
  disabled?: RecordRuleOptions['disabled'];
}

export interface ValidatedRecord {
  /**
   * Normalised, ready to plan: emails trimmed and lower-cased, phones E.164, exporter hash prefixes removed,
   * scrypt base64 standardised, password.algorithm set, TOTP encoding/period/skew filled (base32/30/1),
   * third-party emails filled from the record's email when absent.
   */
  record: CanonicalUser;
  origin: RecordOrigin;
  /** The reader's problems on this record, then the validator's. */
  problems: Problem[];
  valid: boolean;
}

export interface Validator {
  add(item: SourceRecord): ValidatedRecord;
  /**
   * Cross-record problems only knowable at the end (on the earlier record, naming the later one), then set-level
   * notices: rendered one at a time as they are iterated (a file of duplicates has as many), verdicts updated at once.
   */
  finish(): Iterable<Problem>;
}

export interface ValidationSummary {
  /** Records read (lines a reader could not turn into a record are counted in `errors` only). */
  records: number;
  valid: number;
  invalid: number;
  /** Every problem, including the reader's and those past the `maxProblems` cap. */
  errors: number;
  warnings: number;
  /** Users whose hash was recognised, per algorithm (valid or not). */
  passwordUsers: Record<'bcrypt' | 'argon2' | 'external_scrypt', number>;
  /** Users per third-party provider id (after mapping). */
  thirdPartyUsers: Record<string, number>;
  phoneSignInUsers: number;
  totpDevices: number;
  emailFactors: number;
  smsFactors: number;
  /**
   * Users whose password hash the core cannot take, per algorithm, and what the run does with them (absent when
   * there are none): `skip` leaves them out, `without-password` imports the rest; both list them for migration at
   * first sign-in.
   */
  unusableHashes?: { policy: UnusableHashPolicy; users: number; byAlgorithm: Record<string, number> };
  /** Source fields the readers carried over and those they could not (absent when no reader reported any). */
  fields?: FieldSummary;
  /**
   * Whole classes of users one missing setting or file drops (absent when none): Firebase scrypt hashes without
   * the hash config, a Supabase users table without its identities or mfa_factors, an Auth0 user export without
   * its password-hash export, a companion row tied to no user. `run` refuses to write while this is present,
   * unless told `--allow-partial`; each entry names the fix (and the file expected).
   */
  droppedClasses?: DroppedClass[];
}

export interface ValidationReport {
  summary: ValidationSummary;
  /** In reading order, late (cross-record) problems last; at most `maxProblems`. */
  problems: Problem[];
  problemsOmitted: number;
  /** How many late (cross-record) problems the pass found, every one an error (counted, not kept). */
  lateErrors: number;
  /**
   * Records a later record made invalid (their own pass looked valid), by originKey, with their late problems:
   * rendered when asked from compact tables, so a second pass can attach them to their record.
   */
  late: LateVerdicts;
  /** What the runner's second pass needs to skip the cross-record checks (see streamValidatedRecords). */
  replay?: ReplayState;
}

/**
 * The first pass's verdicts, one bit per record (late problems applied), its cross-record problems as numbers (the
 * ClashLog: those each record got in its own pass, and the late ones), and the files' size and mtime, so a second
 * pass over the same unchanged files needs only the per-record rules (normalisation) and no duplicate tables.
 */
export interface ReplayState {
  validBits: Uint8Array;
  count: number;
  clashes: ClashLog;
  files: string;
  /**
   * The first pass's records themselves, when the caller asked to keep them and there were few (`keepUpTo`): the
   * second pass then reads no file and runs no rule again. Taken by the first second pass (a later one reads).
   */
  kept?: ValidatedRecord[];
}

export const DEFAULT_MAX_PROBLEMS = 1000;
/**
 * Runs of up to this many records keep them from the validation pass to the run (20,000 records: about 30 MB, and
 * 0.3 s of reading and checking saved); bigger ones read their files again, to stay within their memory bound.
 */
export const KEEP_RECORDS_UP_TO = 25_000;

export { originKey };

/** Decoded length of a base64 signer key, or undefined when absent or not base64. */
function signerKeyLength(signerKey: string | undefined): number | undefined {
  if (!signerKey) return undefined;
  const std = signerKey.trim().replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(std)) return undefined;
  const body = std.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined;
  return base64Length(body + '='.repeat((4 - (body.length % 4)) % 4));
}

export interface RecordValidator extends Validator {
  /** After finish(): how many records looked valid on their own but are invalid because of a late problem. */
  lateInvalidated(): number;
  /** How many late problems finish() renders (before the set-level notices). */
  lateCount(): number;
  /** After finish(): the verdicts and cross-record problems a replaying second pass needs. */
  replayState(files: string): ReplayState;
}

/** The per-record rules of one item (its reader's problems first); cross-record checks are the caller's. */
function checkOne(item: SourceRecord, rules: RecordRuleOptions): { record: CanonicalUser; ctx: RuleContext } {
  const problems = item.problems.length > 0 ? item.problems.slice() : [];
  const ctx: RuleContext = { origin: item.origin, problems };
  const rawId = (item.record as { id?: unknown } | undefined)?.id;
  if (typeof rawId === 'string' && rawId.trim() !== '') ctx.sourceId = rawId.trim();
  else if (typeof rawId === 'number') ctx.sourceId = String(rawId);
  return { record: checkRecord(ctx, item.record ?? ({} as CanonicalUser), rules), ctx };
}

export function createValidator(options: ValidateOptions = {}): RecordValidator {
  const index = createCrossRecordIndex();
  const signerKeyBytes = signerKeyLength(options.signerKey);
  // One bit per record ordinal: whether its own pass was valid (late problems may change that).
  let validBits = new Uint8Array(1024);
  let count = 0;
  let scryptUsers = 0;
  let firstScrypt: number | undefined;
  let lateInvalidated = 0;
  let finished = false;
  const wasValid = (ordinal: number): boolean => ordinal < count && (validBits[ordinal >> 3]! & (1 << (ordinal & 7))) !== 0;

  function* render(): Generator<Problem> {
    for (const { problem } of index.clashes.lateProblems()) yield problem;
    if (firstScrypt !== undefined) {
      const origin = index.originOf(firstScrypt);
      const problem: Problem = {
        severity: 'warning',
        rule: 'password.scrypt.non-ascii-risk',
        origin,
        field: 'password.hash',
        message: `${scryptUsers} user(s) have external scrypt hashes (this is the first): the core reads passwords as US-ASCII (other characters become "?"), so users whose passwords are not ASCII will not sign in and must reset them; spot-check one you know (validate --check-password EMAIL:PASSWORD, or s on the wizard's preview)`,
      };
      const id = index.idOf(firstScrypt);
      if (id) problem.sourceId = id;
      yield problem;
    }
  }

  return {
    add(item) {
      const { record, ctx } = checkOne(item, { signerKeyBytes, unusableHashes: options.unusableHashes, disabled: options.disabled });
      const problems = ctx.problems;
      const ordinal = index.check(ctx, record);
      let valid = true;
      for (const p of problems) if (p.severity === 'error') valid = false;
      if (ordinal >= validBits.length * 8) {
        const grown = new Uint8Array(validBits.length * 2);
        grown.set(validBits);
        validBits = grown;
      }
      if (valid) validBits[ordinal >> 3]! |= 1 << (ordinal & 7);
      count = ordinal + 1;
      if (record.password?.algorithm === 'external_scrypt') {
        scryptUsers++;
        firstScrypt ??= ordinal;
      }
      return { record, origin: item.origin, problems, valid };
    },
    finish() {
      if (!finished) {
        finished = true;
        for (const ordinal of index.clashes.lateOrdinals()) {
          if (!wasValid(ordinal)) continue;
          validBits[ordinal >> 3]! &= ~(1 << (ordinal & 7));
          lateInvalidated++;
        }
      }
      return render();
    },
    lateInvalidated: () => lateInvalidated,
    lateCount: () => index.clashes.lateCount,
    replayState: (files) => ({ validBits: validBits.slice(0, (count + 7) >> 3), count, clashes: index.clashes, files }),
  };
}

/** Size and mtime of every file, or undefined when one cannot be read (then no second pass replays). */
function filesSignature(paths: string[]): string | undefined {
  try {
    return paths
      .map((p) => {
        const st = statSync(p);
        return st.isFile() ? `${p}\u0000${st.ino}\u0000${st.size}\u0000${st.mtimeMs}` : '?';
      })
      .join('\u0001');
  } catch {
    return undefined;
  }
}

type SourceValidateOptions = ReadOptions & ValidateOptions;

export async function validateSources(
  paths: string[],
  options: SourceValidateOptions & {
    onRecord?: (r: ValidatedRecord) => void;
    maxProblems?: number;
    /** Keep the records for the second pass when there are at most this many (default none kept). */
    keepUpTo?: number;
  },
): Promise<ValidationReport> {
  const maxProblems = options.maxProblems ?? DEFAULT_MAX_PROBLEMS;
  const summary = emptySummary();
  const report: ValidationReport = { summary, problems: [], problemsOmitted: 0, lateErrors: 0, late: lateVerdicts(undefined) };
  const keep = (list: Problem[]): void => {
    for (const p of list) {
      if (report.problems.length < maxProblems) report.problems.push(p);
      else report.problemsOmitted++;
    }
  };
  const validator = createValidator(options);
  const signature = filesSignature(paths);
  let kept: ValidatedRecord[] | undefined = options.keepUpTo ? [] : undefined;
  const fields = options.fields ?? new FieldReport();
  const findings = options.findings ?? new SourceFindings();
  for await (const item of readSources(paths, { ...options, fields, findings })) {
    if (item.kind === 'problem') {
      countProblems(summary, [item.problem]);
      keep([item.problem]);
      continue;
    }
    const validated = validator.add(item.value);
    countRecord(summary, validated);
    if (validated.problems.length > 0) keep(validated.problems);
    options.onRecord?.(validated);
    if (kept && kept.push(validated) > (options.keepUpTo ?? 0)) kept = undefined;
  }
  // Late problems one at a time: counted, the first kept up to the cap, none held otherwise.
  const one: Problem[] = [];
  for (const p of validator.finish()) {
    one[0] = p;
    countProblems(summary, one);
    keep(one);
  }
  report.lateErrors = validator.lateCount();
  if (!fields.empty) summary.fields = fields.summary();
  if (!findings.empty) summary.droppedClasses = findings.list();
  if (summary.unusableHashes) summary.unusableHashes.policy = options.unusableHashes ?? 'skip';
  summary.valid -= validator.lateInvalidated();
  summary.invalid += validator.lateInvalidated();
  const replay = validator.replayState(signature ?? '');
  if (kept) replay.kept = kept;
  report.late = lateVerdicts(replay.clashes);
  if (signature !== undefined && !signature.includes('?') && signature === filesSignature(paths)) report.replay = replay;
  return report;
}

/**
 * The runner's pass: re-read the files and yield every record, normalised, with the late problems the
 * report found attached (so `valid` is false for records a later record conflicts with). When the files are
 * unchanged since `report` was made, the first pass's verdicts are replayed: only the per-record rules run
 * again (they normalise the record), without the cross-record tables, or nothing at all when the first pass kept
 * its records (`keepUpTo`); otherwise everything is validated again.
 */
export async function* streamValidatedRecords(
  paths: string[],
  options: SourceValidateOptions,
  report: ValidationReport,
): AsyncIterable<ValidatedRecord> {
  const replay = report.replay;
  if (replay && replay.files === filesSignature(paths)) {
    const kept = replay.kept;
    replay.kept = undefined;
    yield* kept ? replayKeptRecords(kept, replay) : replayValidatedRecords(paths, options, replay);
    return;
  }
  const validator = createValidator(options);
  const checkLate = report.late.size > 0;
  for await (const item of readSources(paths, options)) {
    if (item.kind !== 'record') continue;
    const validated = validator.add(item.value);
    if (checkLate) {
      const late = report.late.problemsOf(originKey(validated.origin));
      if (late.length > 0) {
        validated.valid = false;
        validated.problems.push(...late);
      }
    }
    yield validated;
  }
}

/** The first pass's records with their late problems and verdicts; each let go once yielded. */
function* replayKeptRecords(kept: (ValidatedRecord | undefined)[], replay: ReplayState): Generator<ValidatedRecord> {
  const problemsOf = replay.clashes.replayer();
  for (let ordinal = 0; ordinal < kept.length; ordinal++) {
    const { record, origin, problems } = kept[ordinal]!;
    kept[ordinal] = undefined;
    const valid = (replay.validBits[ordinal >> 3]! & (1 << (ordinal & 7))) !== 0;
    // Its own problems and those it got in its own pass are kept; the late ones came from records after it.
    yield { record, origin, problems: [...problems, ...problemsOf(ordinal).late], valid };
  }
}

async function* replayValidatedRecords(
  paths: string[],
  options: SourceValidateOptions,
  replay: ReplayState,
): AsyncIterable<ValidatedRecord> {
  const signerKeyBytes = signerKeyLength(options.signerKey);
  // The first pass's cross-record problems of each record, its own and its late ones, in record order.
  const problemsOf = replay.clashes.replayer();
  let ordinal = 0;
  for await (const item of readSources(paths, options)) {
    if (item.kind !== 'record') continue;
    const { record, ctx } = checkOne(item.value, { signerKeyBytes, unusableHashes: options.unusableHashes, disabled: options.disabled });
    const problems = ctx.problems;
    // Past the first pass's count the file grew after all: such a record was never validated, so it is not valid.
    const valid = ordinal < replay.count && (replay.validBits[ordinal >> 3]! & (1 << (ordinal & 7))) !== 0;
    if (ordinal < replay.count) {
      const cross = problemsOf(ordinal);
      problems.push(...cross.now, ...cross.late);
    }
    ordinal++;
    yield { record, origin: item.value.origin, problems, valid };
  }
}
