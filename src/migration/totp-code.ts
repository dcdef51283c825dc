// RFC 6238 TOTP codes (HMAC-SHA1, 6 digits), as the core computes them, for verifying imported devices.
import { createHmac } from 'node:crypto';
import base32 from 'hi-base32';

/** The code of a base32 secret for time step `counter` (= floor(unixSeconds / period)). */
export function totpAt(base32Secret: string, counter: number, digits = 6): string {
  const key = Buffer.from(base32.decode.asBytes(base32Secret.toUpperCase().replace(/=+$/, '')));
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/**
 * Codes to try, best first: the current step, then the neighbours the device's skew accepts. The core
 * refuses a code already used (replay protection), so a second verification in the same period needs one
 * of the neighbours.
 */
export function candidateCodes(base32Secret: string, period: number, skew: number, nowMs: number = Date.now()): string[] {
  const counter = Math.floor(nowMs / 1000 / period);
  const steps = [0];
  for (let i = 1; i <= skew; i += 1) steps.push(i, -i);
  return [...new Set(steps.map((d) => totpAt(base32Secret, counter + d)))];
}
