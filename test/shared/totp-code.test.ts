// TOTP codes for verification: RFC 6238 appendix B (SHA1) vectors, and the skew neighbours.
import { describe, expect, it } from 'vitest';
import { candidateCodes, totpAt } from '../../src/shared/totp-code.js';

const SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('totpAt', () => {
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [2000000000, '69279037'],
  ])('t=%i -> %s', (t, code) => {
    expect(totpAt(SEED, Math.floor(t / 30), 30, 8)).toBe(code);
    expect(totpAt(SEED, Math.floor(t / 30))).toBe(code.slice(2));
  });

  it('tries the current step first, then the neighbours the skew allows', () => {
    const now = 1111111109_000;
    const c = Math.floor(1111111109 / 30);
    expect(candidateCodes(SEED, 30, 1, now)).toEqual([totpAt(SEED, c), totpAt(SEED, c + 1), totpAt(SEED, c - 1)]);
    expect(candidateCodes(SEED, 30, 0, now)).toEqual(['081804']);
  });
});
