// parseForE164 must give what libphonenumber-js's own parse gives (the E.164 form, or the same error) for any
// number: tried on numbers of every calling code, of every length, with trunk zeros, decorations and extensions.
import { createRequire } from 'node:module';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/shared/rng.js';
import { parseForE164 } from '../../src/records/phone-e164.js';

const require = createRequire(import.meta.url);
const CODES = Object.keys((require('libphonenumber-js/min/metadata') as { country_calling_codes: object }).country_calling_codes);

/** E.164 text, or the error's message. */
function outcome(parse: (t: string) => { number: string }, text: string): string {
  try {
    return parse(text).number;
  } catch (err) {
    return `error ${(err as Error).message}`;
  }
}

// The project's seeded generator, so a failure names a number that can be tried again.
const rng = createRng(0x2545f491);
const rand = (n: number): number => rng.int(0, n - 1);
const digits = (n: number): string => Array.from({ length: n }, () => String(rand(10))).join('');

describe('parseForE164', () => {
  it('gives the same E.164 form or the same error as libphonenumber-js, on every calling code', () => {
    const texts: string[] = [];
    for (const code of CODES) {
      for (let len = 1; len <= 20; len++) texts.push(`+${code}${digits(len)}`);
      for (let k = 0; k < 12; k++) {
        const n = digits(6 + rand(8));
        texts.push(
          `+${code}0${n}`,
          `+${code} (0) ${n}`,
          `+${code}-${n.slice(0, 3)} ${n.slice(3)}`,
          `+${code}${n} ext. 12`,
          `+${code}${n}x`,
        );
      }
    }
    texts.push(
      '+',
      '+0',
      '+999123456',
      '+1 555 0100',
      '+44 (0)20 7946 0958',
      '+640223334444',
      '+1 (800) FLOWERS',
      '+7 495 123-45-67',
      '+39 06 698 12345',
    );
    expect(texts.length).toBeGreaterThan(15_000);
    const differ = texts.filter((t) => outcome(parseForE164, t) !== outcome(parsePhoneNumberWithError, t));
    expect(differ).toEqual([]);
    // The comparison is not vacuous: both valid numbers and every kind of error are among them.
    const kinds = new Set(texts.map((t) => outcome(parsePhoneNumberWithError, t).replace(/^\+\d+$/, 'E.164')));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(['E.164', 'error INVALID_COUNTRY', 'error NOT_A_NUMBER', 'error TOO_LONG', 'error TOO_SHORT']),
    );
  });
});
