// TOTP lists: CSV with a header (userId or email, secret, encoding, period, skew, deviceName, ...) or
// `otpauth://totp/...` key URIs one a line. Rows are the small side of a join with the user files.
import type { CanonicalTotp, Problem, RecordOrigin, SecretEncoding } from '../records/types.js';
import { UserError } from '../errors.js';
import { openBytes, readTextHead } from './input.js';
import { addProblem, type FieldContext } from './fields.js';
import { csvRecordBatches, parseCsvLine } from './csv.js';
import { splitLineBatches, type TextLine } from './lines.js';

async function* flatten(batches: AsyncIterable<TextLine[]>): AsyncGenerator<TextLine> {
  for await (const batch of batches) yield* batch;
}

export interface TotpRow {
  userId?: string;
  email?: string;
  totp: CanonicalTotp;
  origin: RecordOrigin;
  problems: Problem[];
}

export type TotpItem = { ok: true; row: TotpRow } | { ok: false; problem: Problem };

const COLUMNS: Record<string, keyof Omit<TotpRow, 'totp' | 'origin' | 'problems'> | keyof CanonicalTotp> = {
  userid: 'userId',
  user_id: 'userId',
  id: 'userId',
  email: 'email',
  secret: 'secret',
  encoding: 'encoding',
  period: 'period',
  skew: 'skew',
  devicename: 'deviceName',
  device_name: 'deviceName',
  device: 'deviceName',
  algorithm: 'algorithm',
  digits: 'digits',
};

export async function* readTotpFile(path: string): AsyncGenerator<TotpItem> {
  const head = await readTextHead(path, 4096);
  const uris = /^\s*otpauth:\/\//i.test(head.toString('utf8'));
  let header: Array<string | undefined> | null = null;
  const lines = splitLineBatches(openBytes(path), { name: path });
  // A CSV value may hold a quoted line break: rows, not lines, for the CSV form.
  for await (const { text, line } of flatten(uris ? lines : csvRecordBatches(lines, { name: path }))) {
    const origin: RecordOrigin = { file: path, line };
    if (text.trim() === '' || (uris && text.trimStart().startsWith('#'))) continue;
    if (uris) {
      yield parseOtpauthLine(text.trim(), origin);
      continue;
    }
    if (!header) {
      header = readHeader(path, text);
      continue;
    }
    yield csvRow(text, header, origin);
  }
  if (!uris && !header)
    throw new UserError(`${path} has no header line; the first line must name the columns (userId or email, secret, ...)`);
}

function readHeader(path: string, text: string): Array<string | undefined> {
  const parsed = parseCsvLine(text);
  if (!parsed.ok) throw new UserError(`${path}:1: the header cannot be read (${parsed.reason})`);
  const names = parsed.fields.map((f) => COLUMNS[f.trim().toLowerCase().replace(/[\s-]/g, '')] ?? COLUMNS[f.trim().toLowerCase()]);
  if (!names.includes('secret') || !(names.includes('userId') || names.includes('email'))) {
    throw new UserError(
      // The fields are not echoed: without a header, the first line may be a secret.
      `${path}:1: the header must name a "secret" column and a "userId" or "email" column (the first line has ${parsed.fields.length} fields and does not); add a header line`,
    );
  }
  return names;
}

function problem(origin: RecordOrigin, message: string, field?: string, severity: 'error' | 'warning' = 'error'): Problem {
  const p: Problem = { severity, rule: 'totp.row', origin, message };
  if (field) p.field = field;
  return p;
}

function csvRow(text: string, header: Array<string | undefined>, origin: RecordOrigin): TotpItem {
  const parsed = parseCsvLine(text);
  if (!parsed.ok) return { ok: false, problem: problem(origin, `the row cannot be read: ${parsed.reason}`) };
  const { fields } = parsed;
  if (fields.length < header.length) {
    return {
      ok: false,
      problem: problem(origin, `the row has ${fields.length} columns, the header has ${header.length}; fill in the missing columns`),
    };
  }
  if (fields.slice(header.length).some((f) => f !== '')) {
    return {
      ok: false,
      problem: problem(origin, `the row has ${fields.length} columns, the header has ${header.length}; quote values that contain commas`),
    };
  }
  const values: Record<string, string> = {};
  header.forEach((name, i) => {
    if (name && fields[i] !== '') values[name] = fields[i]!;
  });
  return buildRow(values, origin);
}

/** Shared by CSV and otpauth: typed values, with problems for bad numbers or encodings. */
function buildRow(values: Record<string, string>, origin: RecordOrigin): TotpItem {
  const sourceId = values['userId'] ?? values['email'];
  const ctx: FieldContext = { origin, problems: [] };
  if (sourceId !== undefined) ctx.sourceId = sourceId;
  if (values['userId'] === undefined && values['email'] === undefined) {
    return { ok: false, problem: problem(origin, 'the row has neither a userId nor an email to join it to a user') };
  }
  if (values['secret'] === undefined)
    return { ok: false, problem: { ...problem(origin, 'the row has no secret', 'secret'), ...(sourceId ? { sourceId } : {}) } };
  const totp: CanonicalTotp = { secret: values['secret'] };
  const encoding = values['encoding']?.toLowerCase();
  if (encoding !== undefined) {
    if (encoding === 'base32' || encoding === 'base64' || encoding === 'hex') totp.encoding = encoding as SecretEncoding;
    else addProblem(ctx, 'encoding', `encoding must be base32, base64 or hex, not "${encoding.slice(0, 20)}"`, 'totp.row');
  }
  for (const key of ['period', 'skew', 'digits'] as const) {
    const text = values[key];
    if (text === undefined) continue;
    if (/^-?\d+$/.test(text)) totp[key] = Number(text);
    else addProblem(ctx, key, `${key} must be a whole number, not "${text.slice(0, 20)}"`, 'totp.row');
  }
  if (values['deviceName'] !== undefined) totp.deviceName = values['deviceName'];
  if (values['algorithm'] !== undefined) totp.algorithm = values['algorithm'].toUpperCase();
  const row: TotpRow = { totp, origin, problems: ctx.problems };
  if (values['userId'] !== undefined) row.userId = values['userId'];
  if (values['email'] !== undefined) row.email = values['email'];
  return { ok: true, row };
}

/** `otpauth://totp/Issuer:account?secret=...&issuer=...&algorithm=...&digits=...&period=...` */
export function parseOtpauthLine(text: string, origin: RecordOrigin): TotpItem {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: problem(origin, 'the line is not an otpauth:// URI') };
  }
  if (url.protocol !== 'otpauth:') return { ok: false, problem: problem(origin, 'the line is not an otpauth:// URI') };
  if (url.host.toLowerCase() !== 'totp') {
    return { ok: false, problem: problem(origin, `only otpauth://totp URIs can be migrated, not ${url.host.slice(0, 10)}`) };
  }
  let label: string;
  try {
    label = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    return { ok: false, problem: problem(origin, 'the URI label is not valid percent-encoding') };
  }
  const colon = label.indexOf(':');
  const labelIssuer = colon >= 0 ? label.slice(0, colon).trim() : undefined;
  const account = (colon >= 0 ? label.slice(colon + 1) : label).trim();
  if (account === '') return { ok: false, problem: problem(origin, 'the URI has no account name (user id or email) after the issuer') };
  const params = url.searchParams;
  const values: Record<string, string> = {};
  values[account.includes('@') ? 'email' : 'userId'] = account;
  const secret = params.get('secret');
  if (secret) values['secret'] = secret;
  for (const key of ['period', 'digits', 'algorithm'] as const) {
    const v = params.get(key);
    if (v) values[key] = v;
  }
  const issuer = params.get('issuer') ?? labelIssuer;
  if (issuer) values['deviceName'] = issuer;
  return buildRow(values, origin);
}
