// Tell an export's format from its first bytes (and name): canonical, Firebase (JSON, CSV), Auth0, Clerk, Supabase, Keycloak,
// Cognito or a TOTP list.
import { UserError } from '../errors.js';
import { SOURCE_FORMATS, type SourceFormat } from './index.js';
import { isClerkHeader } from './clerk.js';
import { isCognitoJson } from './cognito.js';
import { parseCsvLine } from './csv.js';
import { checkReadable, readTextHead } from './input.js';
import { supabaseTableOf } from './supabase.js';

export async function detectFormat(path: string): Promise<SourceFormat> {
  await checkReadable(path);
  const head = await readTextHead(path);
  const format = sniffFormat(head.toString('utf8'), path);
  if (format) return format;
  // The content is not echoed: it could be a secret or a hash.
  throw new UserError(
    `cannot tell the format of ${path} (it is not JSON, NDJSON, a CSV with a secret column, a Firebase or Clerk CSV export or otpauth:// lines); pass --format ${SOURCE_FORMATS.slice(0, -1).join(', ')} or ${SOURCE_FORMATS[SOURCE_FORMATS.length - 1]}`,
  );
}

/**
 * firebase-tools' headerless CSV: 28 columns and a trailing comma, the third `true` or `false`. Checked before the
 * `.csv` name rule, which used to take it for a TOTP list.
 */
function isFirebaseCsvLine(line: string): boolean {
  const parsed = parseCsvLine(line);
  if (!parsed.ok) return false;
  const f = parsed.fields;
  return (f.length === 28 || (f.length === 29 && f[28] === '')) && (f[2] === 'true' || f[2] === 'false') && f[0] !== '';
}

/** The format a file's first bytes show, or null. */
export function sniffFormat(text: string, name = ''): SourceFormat | null {
  const start = text.trimStart();
  if (start === '') return null;
  if (/^otpauth:\/\//i.test(start)) return 'totp';
  if (start[0] === '[' || start[0] === '{') {
    if (isCognitoJson(text)) return 'cognito';
    if (/"localId"\s*:/.test(text)) return 'firebase';
    if (/"(?:encrypted_password|raw_user_meta_data|raw_app_meta_data|identity_data|factor_type)"\s*:/.test(text)) return 'supabase';
    if (isKeycloak(start, text)) return 'keycloak';
    if (/"(?:_id|_ID|user_id|alt_id)"\s*:|"identities"\s*:|"\$oid"\s*:/.test(text)) return 'auth0';
    return 'canonical';
  }
  const firstLine = start.split(/\r\n|\r|\n/, 1)[0]!.toLowerCase();
  const header = parseCsvLine(firstLine);
  if (header.ok && supabaseTableOf(header.fields.map((f) => f.trim())) !== null) return 'supabase';
  if (isFirebaseCsvLine(firstLine)) return 'firebase-csv';
  // Clerk's header may follow `#` comment lines (its samples carry one).
  const headerLine = start.split(/\r\n|\r|\n/).find((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  if (headerLine !== undefined && isClerkHeader(headerLine)) return 'clerk';
  if (/\.csv$/i.test(name) || (firstLine.includes(',') && /(^|,)\s*"?secret"?\s*(,|$)/.test(firstLine))) return 'totp';
  return null;
}

/** A realm export names its realm near the top; users (split files, the admin API) have createdTimestamp and username. */
function isKeycloak(start: string, text: string): boolean {
  const realm = /"realm"\s*:\s*"/.test(start.slice(0, 4096)) && /"(?:users|sslRequired|realmRoles|createdTimestamp)"\s*:/.test(text);
  return realm || (/"createdTimestamp"\s*:/.test(text) && /"username"\s*:/.test(text));
}
