// TOTP secrets with known values in base32, base64 or hex, and their CSV and otpauth:// list forms.
import base32 from 'hi-base32';
import type { SecretEncoding } from '../../src/records/types.js';
import type { Rng } from '../../src/shared/rng.js';

export interface GeneratedSecret {
  /** The secret as written in the source, in `encoding`. */
  secret: string;
  encoding: SecretEncoding;
  /** The same bytes in unpadded base32 (what an authenticator app and the core use). */
  base32: string;
}

export function encodeSecret(bytes: Buffer, encoding: SecretEncoding): string {
  if (encoding === 'base64') return bytes.toString('base64');
  if (encoding === 'hex') return bytes.toString('hex');
  return base32.encode(bytes).replace(/=+$/, '');
}

/** 20 random bytes (160 bits, as RFC 4226 recommends) in the given encoding. */
export function generateSecret(rng: Rng, encoding: SecretEncoding = 'base32', size = 20): GeneratedSecret {
  const bytes = rng.bytes(size);
  return { secret: encodeSecret(bytes, encoding), encoding, base32: encodeSecret(bytes, 'base32') };
}

export interface TotpCsvRow {
  userId?: string;
  email?: string;
  secret: string;
  encoding?: SecretEncoding;
  period?: number;
  skew?: number;
  deviceName?: string;
}

function csvField(value: string | number | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV with a header; the key column is `userId` or `email` as the rows use. */
export function totpCsv(rows: TotpCsvRow[], eol = '\n'): string {
  const key = rows.some((r) => r.userId !== undefined) ? 'userId' : 'email';
  const lines = [`${key},secret,encoding,period,skew,deviceName`];
  for (const r of rows) {
    lines.push([r.userId ?? r.email, r.secret, r.encoding, r.period, r.skew, r.deviceName].map(csvField).join(','));
  }
  return lines.join(eol) + eol;
}

export interface OtpauthEntry {
  account: string;
  secretBase32: string;
  issuer?: string;
  algorithm?: string;
  digits?: number;
  period?: number;
}

export function otpauthUri(e: OtpauthEntry): string {
  const label = e.issuer ? `${encodeURIComponent(e.issuer)}:${encodeURIComponent(e.account)}` : encodeURIComponent(e.account);
  const params = new URLSearchParams({ secret: e.secretBase32 });
  if (e.issuer) params.set('issuer', e.issuer);
  if (e.algorithm) params.set('algorithm', e.algorithm);
  if (e.digits !== undefined) params.set('digits', String(e.digits));
  if (e.period !== undefined) params.set('period', String(e.period));
  return `otpauth://totp/${label}?${params.toString()}`;
}
