// RFC 6238 codes as the reference core checks them: HMAC-SHA1, 6 digits, windows -skew..+skew periods (the codes
// by otplib); secrets decoded like commons-codec Base32 (case-insensitive, unknown characters skipped, stops at '=').
import { totpAt } from '../shared/totp-code.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function decodeBase32Lenient(secret: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of secret.toUpperCase()) {
    if (ch === '=') break;
    const v = ALPHABET.indexOf(ch);
    if (v < 0) continue;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** Does `code` match the device at `nowMs`, within its skew? */
export function totpMatches(secretKey: string, period: number, skew: number, code: string, nowMs: number): boolean {
  const key = decodeBase32Lenient(secretKey);
  if (key.length === 0) return false;
  const counter = Math.floor(nowMs / 1000 / period);
  for (let i = -skew; i <= skew; i++) {
    if (counter + i >= 0 && totpAt(new Uint8Array(key), counter + i, period) === code) return true;
  }
  return false;
}
