// `auth-migrate validate <file>...`: read the exports, check every record, spot-check known passwords.
// Exit 0 when every record is valid, 1 when some are not (or a spot-check fails), 2 for bad usage or input.
import { parseArgs } from 'node:util';
import type { CommandIO } from './io.js';
import { flagUsageError } from './flag-suggest.js';
import { UsageError } from '../errors.js';
import { loadProfile, type LoadedProfile } from '../profiles/index.js';
import { normaliseEmail } from '../records/normalise.js';
import { spotCheckPassword, type SpotCheckOutcome } from '../records/spot-check.js';
import { DEFAULT_MAX_PROBLEMS, validateSources, type ValidatedRecord, type ValidationReport } from '../records/validate.js';
import { formatProblem } from '../records/types.js';
import { formatCount } from '../numbers.js';
import { renderFieldSummary } from '../sources/index.js';
import { resolveSourceOptions, SOURCE_OPTIONS } from './source-options.js';
import { parseDisabledPolicy } from '../engine/plan/policies.js';
import { usage } from './flag-values.js';

export const VALIDATE_HELP = `Usage: auth-migrate validate <file>... [options]     (a file named - is standard input)

Read export files (canonical JSON/NDJSON, Firebase JSON and CSV, Auth0, Clerk, Supabase, Keycloak, Cognito,
TOTP lists), check every record and print a summary and every problem. Nothing is written anywhere.
Sources:     --format canonical|firebase|firebase-csv|auth0|clerk|supabase|keycloak|cognito|totp  --hash-config FILE (the console's hash_config block or JSON)
             --provider-map FILE (JSON: {"google.com": "google"})  --profile NAME (files and settings of a profile)
Signer key:  --signer-key B64 (or AUTH_MIGRATE_SIGNER_KEY; overrides the hash config's)
Hashes:      --unusable-hashes skip|without-password|migrate-at-sign-in: how run treats users whose hash the core
             cannot take (md5, sha-*, pbkdf2, Firebase HMAC, Django bcrypt_sha256...): skip (default) makes them
             errors; without-password and migrate-at-sign-in make them warnings, as run then imports them
Disabled:    --disabled skip|import|role:NAME: how run treats users disabled or blocked in the source (as given to
             run; the warnings say what run will do with them)
Spot-check:  --check-password EMAIL:PASSWORD (or ID:PASSWORD; repeatable): verify a password you know against
             the exported hash, locally. The password is never printed.
Output:      --json (one JSON document: summary (with summary.fields: the source fields mapped and those dropped,
             and why; summary.droppedClasses: users a missing setting or file would drop), problems,
             problemsOmitted, spotChecks)
             --max-problems N (default ${DEFAULT_MAX_PROBLEMS}; the counts always cover every problem)
Exit codes:  0 every record valid, 1 some invalid, a class of users dropped by a missing setting or file, or a
             spot-check failed, 2 bad usage or unreadable input.
Examples:
  auth-migrate validate users.csv --format clerk                          a Clerk export
  auth-migrate validate users.csv identities.csv mfa_factors.csv          Supabase: the users table and its companions
  auth-migrate validate export.json --hash-config hash-config.txt --check-password ada@example.com:PASSWORD
`;

const OPTIONS = {
  ...SOURCE_OPTIONS,
  'check-password': { type: 'string', multiple: true },
  disabled: { type: 'string' },
  json: { type: 'boolean' },
  'max-problems': { type: 'string' },
  profile: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface SpotCheckRequest {
  user: string;
  password: string;
}

export interface SpotCheckResult extends SpotCheckOutcome {
  /** The email or id the operator gave (never the password). */
  user: string;
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw flagUsageError(err, OPTIONS, 'validate');
  }
}

function parseCheck(value: string): SpotCheckRequest {
  const colon = value.indexOf(':');
  if (colon <= 0)
    throw new UsageError('--check-password needs EMAIL:PASSWORD (or ID:PASSWORD), e.g. --check-password ann@example.com:hunter2');
  return { user: value.slice(0, colon).trim(), password: value.slice(colon + 1) };
}

function parseMaxProblems(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_PROBLEMS;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--max-problems must be a whole number, 0 or more (got "${text}")`);
  return n;
}

export async function validateCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout.write(VALIDATE_HELP);
    return 0;
  }
  const checks = (values['check-password'] ?? []).map(parseCheck);
  const maxProblems = parseMaxProblems(values['max-problems']);
  const profile: LoadedProfile | undefined = values.profile !== undefined ? await loadProfile(values.profile, io.env) : undefined;
  const files = positionals.length > 0 ? positionals : (profile?.profile.sources.map((s) => s.path) ?? []);
  if (files.length === 0)
    throw new UsageError('give at least one export file (or a --profile that lists its sources). See `auth-migrate validate --help`.');
  const options = await resolveSourceOptions(values, io.env, profile);
  // Disabled users are reported as `run` will treat them (the same --disabled, or the profile's).
  const disabled = usage('--disabled', () => parseDisabledPolicy(values.disabled ?? profile?.profile.disabled));

  // Keep only the records asked about, so memory stays bounded however large the files are.
  const wanted = new Map<string, ValidatedRecord | undefined>();
  for (const c of checks) wanted.set(c.user, undefined);
  const byEmail = new Map<string, string>();
  for (const c of checks) if (c.user.includes('@')) byEmail.set(normaliseEmail(c.user), c.user);
  const onRecord =
    checks.length === 0
      ? undefined
      : (v: ValidatedRecord): void => {
          for (const key of [v.record.id, v.record.email !== undefined ? byEmail.get(v.record.email) : undefined]) {
            if (key === undefined || !wanted.has(key)) continue;
            // Several users may share an email (a Google user and a password user): prefer the one with a password.
            const held = wanted.get(key);
            if (held === undefined || (!held.record.password && v.record.password)) wanted.set(key, v);
          }
        };

  // Errors that belong to no record (a broken NDJSON line, a CSV row that is not a user) are counted apart, so the
  // summary line says why the exit code is 1 even when every record is valid.
  let recordErrors = 0;
  const counting = (v: ValidatedRecord): void => {
    for (const p of v.problems) if (p.severity === 'error') recordErrors += 1;
    onRecord?.(v);
  };
  const report = await validateSources(files, { ...options, disabled, onRecord: counting, maxProblems });
  const unreadable = Math.max(0, report.summary.errors - recordErrors - report.lateErrors);
  const spotChecks: SpotCheckResult[] = [];
  for (const c of checks) spotChecks.push({ user: c.user, ...(await spotCheck(wanted.get(c.user), c.password, options.signerKey)) });

  if (values.json)
    io.stdout.write(
      JSON.stringify(
        { summary: { ...report.summary, unreadable }, problems: report.problems, problemsOmitted: report.problemsOmitted, spotChecks },
        null,
        2,
      ) + '\n',
    );
  else io.stdout.write(renderText(report, spotChecks, files.length, unreadable));

  const failed =
    report.summary.invalid > 0 ||
    report.summary.errors > 0 ||
    (report.summary.droppedClasses?.length ?? 0) > 0 ||
    spotChecks.some((s) => s.result !== 'match');
  return failed ? 1 : 0;
}

async function spotCheck(found: ValidatedRecord | undefined, password: string, signerKey: string | undefined): Promise<SpotCheckOutcome> {
  if (!found) return { result: 'not-found', detail: 'no record has this email or id' };
  // A legacy hash is checked whatever the policy; another broken hash cannot be.
  if (
    !found.record.password &&
    !found.record.legacyPassword &&
    found.problems.some((p) => p.severity === 'error' && p.rule.startsWith('password.'))
  ) {
    return { result: 'cannot-verify', detail: "cannot verify this format: the record's password hash has errors (see the problems)" };
  }
  return spotCheckPassword(found.record, password, { signerKey });
}

/** Users whose hash the core cannot take: how many, which kinds, and what `run` does with them. */
export function unusableLines(u: NonNullable<ValidationReport['summary']['unusableHashes']>): string[] {
  const kinds = Object.entries(u.byAlgorithm)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([a, n]) => `${a} ${formatCount(n)}`)
    .join(', ');
  const users = `${formatCount(u.users)} user${u.users === 1 ? '' : 's'}`;
  return [
    `  hash the core cannot take: ${users} (${kinds})`,
    u.policy === 'skip'
      ? "    run leaves them out; --unusable-hashes migrate-at-sign-in imports them for the app's sign-in part (the package auth-migrate-signin); --unusable-hashes without-password imports the rest of each user (sign-in methods, factors, profile)"
      : u.policy === 'migrate-at-sign-in'
        ? "    run imports them with a placeholder password and keeps the hash in the core's user metadata for the app's sign-in part (the package auth-migrate-signin)"
        : '    run imports them without a password (a user with nothing but the password is not created)',
    '    either way run lists them with their hash in <journal>.signin-migration.ndjson for migration at first sign-in (docs/migration.md)',
  ];
}

/** Whole classes of users one missing setting or file drops: what run refuses before writing (summary.droppedClasses). */
export function droppedClassLines(dropped: ValidationReport['summary']['droppedClasses']): string[] {
  if (!dropped || dropped.length === 0) return [];
  return [
    '',
    'Users a missing setting or file would drop (run refuses to start until it is given, or --allow-partial):',
    ...dropped.map((d) => `  ${d.message}`),
  ];
}

export function renderText(report: ValidationReport, spotChecks: SpotCheckResult[], fileCount: number, unreadable = 0): string {
  const s = report.summary;
  const n = formatCount;
  const lines: string[] = [];
  const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`;
  lines.push(
    `Validated ${plural(s.records, 'record')} from ${plural(fileCount, 'file')}: ${n(s.valid)} valid, ${n(s.invalid)} invalid` +
      (unreadable > 0 ? `; ${plural(unreadable, 'item')} of the files could not be read as users (listed below)` : ''),
  );
  const pw = s.passwordUsers;
  lines.push(
    `  email-password users: ${n(pw.bcrypt + pw.argon2 + pw.external_scrypt)} (bcrypt ${n(pw.bcrypt)}, argon2 ${n(pw.argon2)}, external scrypt ${n(pw.external_scrypt)})`,
  );
  if (s.unusableHashes) lines.push(...unusableLines(s.unusableHashes));
  const providers = Object.entries(s.thirdPartyUsers).sort(([a], [b]) => a.localeCompare(b));
  lines.push(`  third-party users:    ${providers.length === 0 ? 'none' : providers.map(([p, c]) => `${p} ${n(c)}`).join(', ')}`);
  lines.push(`  phone sign-in users:  ${n(s.phoneSignInUsers)}`);
  lines.push(`  TOTP devices:         ${n(s.totpDevices)}`);
  lines.push(`  email factors:        ${n(s.emailFactors)}`);
  lines.push(`  SMS factors:          ${n(s.smsFactors)}`);
  lines.push(...renderFieldSummary(s.fields));
  lines.push(`  errors: ${n(s.errors)}, warnings: ${n(s.warnings)}`);
  lines.push(...droppedClassLines(s.droppedClasses));
  if (report.problems.length > 0) {
    lines.push('', 'Problems:');
    for (const p of report.problems) lines.push(`  ${formatProblem(p)}`);
    if (report.problemsOmitted > 0) lines.push(`  ... and ${n(report.problemsOmitted)} more (raise --max-problems to see them)`);
  }
  if (spotChecks.length > 0) {
    lines.push('', 'Password spot-checks:');
    for (const c of spotChecks) {
      const verdict = c.result === 'match' ? 'ok' : `FAILED (${c.result})`;
      lines.push(`  ${c.user}: ${verdict}: ${c.detail}${c.nonAsciiRisk ? ' [non-ASCII password: the core reads it as US-ASCII]' : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}
