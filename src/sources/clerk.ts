// The Clerk reader: the dashboard's user export CSV (header row; the columns clerk/migration-tool's Clerk
// transformer reads). Emails, phones, the password digest by its hasher (bcrypt and argon2 are imported,
// scrypt_firebase is converted to the core's Firebase scrypt string, any other hasher goes to legacyPassword), the
// TOTP secret, names and metadata; the rest is named as dropped. A damaged row is its user's error (damaged-rows.ts).
import type { CanonicalUser, RecordOrigin } from '../records/types.js';
import type { SourceItem } from './index.js';
import { csvBool, readCsvRows } from './csv-rows.js';
import { cellCountMessage, columnLabel, damagedRow } from './damaged-rows.js';
import { addProblem, type FieldContext } from './fields.js';
import { fromClerkScryptFirebase, type SignerKeyCheck } from './firebase-digests.js';
import type { FieldReport } from './field-report.js';
import { keepMeta, keepMetaObject } from './profile.js';
import { UserError } from '../errors.js';

export const CLERK = 'clerk';

/** Hashers the core verifies, and the algorithm it is imported as. */
const IMPORTABLE: Record<string, 'bcrypt' | 'argon2'> = { bcrypt: 'bcrypt', argon2i: 'argon2', argon2id: 'argon2' };

/** The dashboard export's columns, in its order (the generator writes this header). */
export const CLERK_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'username',
  'primary_email_address',
  'primary_phone_number',
  'verified_email_addresses',
  'unverified_email_addresses',
  'verified_phone_numbers',
  'unverified_phone_numbers',
  'totp_secret',
  'password_digest',
  'password_hasher',
  'backup_codes_enabled',
  'backup_codes',
  'public_metadata',
  'private_metadata',
  'unsafe_metadata',
  'created_at',
];

const KNOWN = new Set<string>(CLERK_COLUMNS);
const UNKNOWN_COLUMN = "not a column of Clerk's user export that the workbench knows; check its name";
const HIDDEN = 'a column of a header as wide as no row (its name is not shown: it may be data)';

/** Header positions of columns the reader does not know, with the label the field report shows for each. */
type UnknownColumns = Array<[number, string]>;

const DROPPED: Record<string, string> = {
  backup_codes: 'the core has no backup (recovery) codes; users with TOTP keep it, the codes must be issued again',
  backup_codes_enabled: 'the core has no backup (recovery) codes',
  'verified/unverified_email_addresses (not primary)':
    'the core keeps one email per user (the primary address is carried); the other addresses are not',
  'verified/unverified_phone_numbers (not primary)':
    'the core keeps one phone per user (the primary number is carried); the other numbers are not',
  'primary_phone_number (unverified)': 'an unverified primary phone is not a sign-in method; it is not carried',
};

/** A header line of Clerk's export: it names `id` and Clerk's own columns. */
export function isClerkHeader(line: string): boolean {
  const names = line
    .toLowerCase()
    .split(',')
    .map((n) => n.trim().replace(/^"|"$/g, ''));
  return (
    names.includes('id') && ['primary_email_address', 'password_digest', 'password_hasher', 'totp_secret'].some((n) => names.includes(n))
  );
}

export interface ClerkOptions {
  fields?: FieldReport;
  /** The signer key `scrypt_firebase` digests must carry (firebase-digests.ts). */
  keys?: SignerKeyCheck;
}

export async function* readClerk(path: string, options: ClerkOptions = {}): AsyncGenerator<SourceItem[]> {
  const { fields, keys } = options;
  let header: string[] | undefined;
  // Unknown columns are named once the first row shows the header is one (as wide as its rows): a header glued to
  // a data row (a lost line break) would otherwise print that row's values, a TOTP secret or a hash among them.
  let unknown: UnknownColumns | undefined;
  const decideUnknown = (rowWidth: number): UnknownColumns => {
    const wide = rowWidth === header!.length || rowWidth === header!.length + 1;
    return header!.flatMap((name, i) => (KNOWN.has(name) ? [] : [[i, wide ? columnLabel(name, i) : HIDDEN] as [number, string]]));
  };
  for await (const rows of readCsvRows(path, { comments: true })) {
    const batch: SourceItem[] = [];
    for (const row of rows) {
      if (!header) {
        if (!row.ok) throw new UserError(`${path}:${row.problem.origin.line}: the header cannot be read (${row.problem.message})`);
        header = row.fields.map((f) => f.trim().toLowerCase());
        if (!header.includes('id'))
          throw new UserError(`${path}:${row.origin.line}: the header has no "id" column; is this Clerk's user export?`);
        continue;
      }
      unknown ??= decideUnknown(row.fields.length);
      if (!row.ok) {
        const at = header.indexOf('id');
        batch.push(damagedRow(row.fields[at], row.problem.origin, row.problem.message));
      } else batch.push(clerkItem(header, row.fields, row.origin, fields, unknown, keys));
    }
    if (batch.length > 0) yield batch;
  }
  if (!header) throw new UserError(`${path} has no header line; Clerk's export starts with id,first_name,last_name,...`);
}

/** `a@x.com,b@x.com` or `a@x.com|b@x.com` (clerk/migration-tool splits on both). */
function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(/[,|]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function clerkItem(
  header: string[],
  values: string[],
  origin: RecordOrigin,
  fields?: FieldReport,
  unknown: UnknownColumns = [],
  keys?: SignerKeyCheck,
): SourceItem {
  // A row of fewer cells was cut (the end of a file, a line break lost mid-row): read as it is, the user would come
  // without its password or TOTP. One of more cells has a value shifted by an unquoted comma. Either way the user
  // waits, by id, for the file to be fixed.
  if (values.length < header.length || (values.length > header.length && values.slice(header.length).some((v) => v !== ''))) {
    const message = cellCountMessage(values.length, header.length, 'export it again', 'quote values that contain commas');
    return damagedRow(values[header.indexOf('id')], origin, message);
  }
  const v: Record<string, string> = {};
  header.forEach((name, i) => {
    const value = values[i]?.trim();
    if (value) v[name] = value;
  });
  const ctx: FieldContext = { origin, problems: [] };
  const id = v['id'];
  if (id === undefined) {
    addProblem(ctx, 'id', 'id is empty; every Clerk user has one (user_...)', 'source.required');
    return { kind: 'problem', problem: ctx.problems[0]! };
  }
  ctx.sourceId = id;
  const record: CanonicalUser = { id };
  const mapped = (field: string, to: string): void => fields?.mapped(CLERK, field, to);
  const dropped = (field: string): void => fields?.dropped(CLERK, field, DROPPED[field]!);
  mapped('id', 'id');

  readEmails(v, record, mapped, dropped);
  readPhones(v, record, mapped, dropped);
  readPassword(ctx, v, record, mapped, keys);
  if (v['totp_secret'] !== undefined) {
    record.totp = [{ secret: v['totp_secret'], encoding: 'base32' }];
    mapped('totp_secret', 'totp[0].secret');
  }
  for (const key of ['first_name', 'last_name', 'username'] as const) {
    if (v[key] === undefined) continue;
    keepMeta(record, key, v[key]);
    mapped(key, `metadata.${key}`);
  }
  for (const key of ['public_metadata', 'private_metadata', 'unsafe_metadata'] as const) {
    if (v[key] === undefined) continue;
    keepMetaObject(ctx, record, v, key);
    if (record.metadata?.[key] !== undefined) mapped(key, `metadata.${key}`);
  }
  if (v['created_at'] !== undefined) {
    const text = v['created_at'];
    const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (Number.isFinite(ms)) {
      record.timeJoined = ms;
      mapped('created_at', 'timeJoined');
    } else
      addProblem(
        ctx,
        'created_at',
        'created_at must be epoch milliseconds or an ISO date; the join time is left out',
        'source.type',
        'warning',
      );
  }
  if (v['backup_codes'] !== undefined) dropped('backup_codes');
  if (csvBool(v['backup_codes_enabled'] ?? '') === true) dropped('backup_codes_enabled');
  for (const [i, label] of unknown)
    if (values[i]?.trim())
      fields?.dropped(
        CLERK,
        label,
        label === HIDDEN ? 'the header does not match the rows: check the line breaks of the file' : UNKNOWN_COLUMN,
      );
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

type Note = (field: string, to: string) => void;

function readEmails(v: Record<string, string>, record: CanonicalUser, mapped: Note, dropped: (f: string) => void): void {
  const verified = list(v['verified_email_addresses']).map((e) => e.toLowerCase());
  const unverified = list(v['unverified_email_addresses']);
  const primary = v['primary_email_address'] ?? verified[0] ?? unverified[0];
  if (primary === undefined) return;
  record.email = primary;
  mapped(v['primary_email_address'] !== undefined ? 'primary_email_address' : 'verified_email_addresses', 'email');
  record.emailVerified = verified.includes(primary.toLowerCase());
  mapped(verified.includes(primary.toLowerCase()) ? 'verified_email_addresses' : 'unverified_email_addresses', 'emailVerified');
  if ([...verified, ...unverified].some((e) => e.toLowerCase() !== primary.toLowerCase()))
    dropped('verified/unverified_email_addresses (not primary)');
}

function readPhones(v: Record<string, string>, record: CanonicalUser, mapped: Note, dropped: (f: string) => void): void {
  const verified = list(v['verified_phone_numbers']);
  const unverified = list(v['unverified_phone_numbers']);
  const primary = v['primary_phone_number'] ?? verified[0];
  if (primary !== undefined) {
    // Clerk lists the primary among the verified numbers once it is verified (and then it can sign in by SMS).
    if (verified.includes(primary) || verified.length === 0) {
      record.phoneNumber = primary;
      mapped('primary_phone_number', 'phoneNumber');
    } else dropped('primary_phone_number (unverified)');
  }
  if ([...verified, ...unverified].some((p) => p !== primary)) dropped('verified/unverified_phone_numbers (not primary)');
}

function readPassword(ctx: FieldContext, v: Record<string, string>, record: CanonicalUser, mapped: Note, keys?: SignerKeyCheck): void {
  const digest = v['password_digest'];
  const hasher = v['password_hasher']?.toLowerCase();
  if (digest === undefined) {
    if (hasher !== undefined)
      addProblem(
        ctx,
        'password_hasher',
        'password_hasher is set but password_digest is empty; the user has no password to carry',
        'clerk.digest-missing',
        'warning',
      );
    return;
  }
  if (hasher === undefined) {
    addProblem(
      ctx,
      'password_hasher',
      'the user has a password_digest but no password_hasher, so its format is unknown; fill in the hasher (bcrypt, argon2id, ...)',
      'clerk.hasher-missing',
    );
    return;
  }
  const algorithm = IMPORTABLE[hasher];
  if (algorithm) {
    record.password = { hash: digest, algorithm };
    mapped('password_digest', 'password.hash');
    mapped('password_hasher', 'password.algorithm');
    return;
  }
  if (hasher === 'scrypt_firebase') {
    // Firebase's scrypt with the project's parameters in the digest: the core takes it once converted.
    const converted = fromClerkScryptFirebase(digest);
    if (converted.ok) {
      record.password = { hash: converted.hash, algorithm: 'external_scrypt' };
      const wrong = keys?.check(converted.signerKey, ctx.origin);
      if (wrong) addProblem(ctx, 'password_digest', wrong, 'password.scrypt.signer-key');
      mapped('password_digest', 'password.hash (scrypt_firebase as the Firebase scrypt string; its signer key is core configuration)');
      mapped('password_hasher', 'password.algorithm');
      return;
    }
    addProblem(
      ctx,
      'password_digest',
      `the scrypt_firebase digest cannot be converted to the core's Firebase scrypt form (${converted.why}); it is kept for migration at first sign-in`,
      'clerk.scrypt-firebase',
      'warning',
    );
  }
  record.legacyPassword = { algorithm: hasher, hash: digest };
  mapped('password_digest', 'legacyPassword.hash (the core cannot verify this hasher)');
  mapped('password_hasher', 'legacyPassword.algorithm');
}
