// RFC 6238 TOTP codes (HMAC-SHA1, 6 digits), as the core computes them: the migration's verify makes codes of imported
// devices and the sandbox checks codes with the same function, so both agree by construction. Computed
// with otplib; its guardrails are relaxed to 1-byte secrets: 80-bit secrets are common in real exports.
import { generateSync } from 'otplib';
import { createGuardrails } from '@otplib/core';

const GUARDRAILS = createGuardrails({ MIN_SECRET_BYTES: 1 });

/** The code of a secret for time step `counter` (= floor(unixSeconds / period)); base32 text or the key's bytes. */
export function totpAt(secret: string | Uint8Array, counter: number, period = 30, digits: 6 | 8 = 6): string {
  const key = typeof secret === 'string' ? secret.toUpperCase().replace(/=+$/, '') : secret;
  return generateSync({ secret: key, epoch: counter * period, period, digits, guardrails: GUARDRAILS });
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
  return [...new Set(steps.map((d) => totpAt(base32Secret, counter + d, period)))];
}
