// RFC 6238 codes as the reference core checks them: HMAC-SHA1, 6 digits, windows -skew..+skew periods;
// secrets decoded like commons-codec Base32 (case-insensitive, unknown characters skipped, stops at '=').
import { createHmac } from 'node:crypto';

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

export function hotp(key: Buffer, counter: number): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(bin % 1_000_000).padStart(6, '0');
}

/** Does `code` match the device at `nowMs`, within its skew? */
export function totpMatches(secretKey: string, period: number, skew: number, code: string, nowMs: number): boolean {
  const key = decodeBase32Lenient(secretKey);
  const counter = Math.floor(nowMs / 1000 / period);
  for (let i = -skew; i <= skew; i++) {
    if (counter + i >= 0 && hotp(key, counter + i) === code) return true;
  }
  return false;
}
