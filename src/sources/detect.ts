// Tell an export's format from its first bytes (and name): canonical, Firebase, Auth0 or a TOTP list.
import { UserError } from '../errors.js';
import type { SourceFormat } from './index.js';
import { checkReadable, readTextHead } from './input.js';

export async function detectFormat(path: string): Promise<SourceFormat> {
  await checkReadable(path);
  const head = await readTextHead(path);
  const format = sniffFormat(head.toString('utf8'), path);
  if (format) return format;
  // The content is not echoed: it could be a secret or a hash.
  throw new UserError(
    `cannot tell the format of ${path} (it is not JSON, NDJSON, a CSV with a secret column or otpauth:// lines); pass --format canonical, firebase, auth0 or totp`,
  );
}

/** The format a file's first bytes show, or null. */
export function sniffFormat(text: string, name = ''): SourceFormat | null {
  const start = text.trimStart();
  if (start === '') return null;
  if (/^otpauth:\/\//i.test(start)) return 'totp';
  if (start[0] === '[' || start[0] === '{') {
    if (/"localId"\s*:/.test(text)) return 'firebase';
    if (/"(?:_id|_ID|user_id|alt_id)"\s*:|"identities"\s*:|"\$oid"\s*:/.test(text)) return 'auth0';
    return 'canonical';
  }
  const firstLine = start.split(/\r?\n/, 1)[0]!.toLowerCase();
  if (/\.csv$/i.test(name) || (firstLine.includes(',') && /(^|,)\s*"?secret"?\s*(,|$)/.test(firstLine))) return 'totp';
  return null;
}
