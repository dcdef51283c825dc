// A phone number's E.164 form as libphonenumber-js gives it (the reference core's `normalizeIfPhoneNumber` is
// Google's libphonenumber), without the step that costs most and that E.164 does not depend on: choosing the
// exact country among those that share a calling code (+1 has 25: each is tried with its number patterns).
// The calling code and the national number, which make the E.164 form, are read with the numbering plan the
// library picks for the code in any case (its first country), so the result and the errors are the same
// (test/records/phone-e164.test.ts compares both on many numbers). Validation of a million records spent a
// quarter of its time there.
import { createRequire } from 'node:module';
import { parsePhoneNumberWithError, type MetadataJson, type PhoneNumber } from 'libphonenumber-js/core';

const require = createRequire(import.meta.url);
const MIN = require('libphonenumber-js/min/metadata') as MetadataJson & { country_calling_codes: Record<string, string[]> };

/** The library's own (min) metadata with one country per calling code: the one it reads national numbers with. */
const ONE_COUNTRY_PER_CODE = {
  ...MIN,
  country_calling_codes: Object.fromEntries(
    Object.entries(MIN.country_calling_codes).map(([code, countries]) => [code, countries.slice(0, 1)]),
  ),
} as MetadataJson;

/** As `parsePhoneNumberWithError(text)` from 'libphonenumber-js', for `.number`: its `.country` is not the exact one. */
export function parseForE164(text: string): PhoneNumber {
  return parsePhoneNumberWithError(text, ONE_COUNTRY_PER_CODE);
}
