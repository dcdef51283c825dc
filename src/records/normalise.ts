// Normalisers for identifiers, done the way the core does (emails, phones): the validator stores the normalised
// values so duplicates are found, plans are made and verify compares on what the core will store.
import { ParseError } from 'libphonenumber-js/core';
import { parseForE164 } from './phone-e164.js';

/** The core's `Utils.normaliseEmail`: trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

// The email check of the SuperTokens SDKs (supertokens-node `defaultEmailValidator`): a user whose email
// fails it could not type it into the sign-in form.
const EMAIL =
  /^(([^<>()[\]\\.,;:\s@"]+(\.[^<>()[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;

export function isValidEmail(normalisedEmail: string): boolean {
  return EMAIL.test(normalisedEmail);
}

const PHONE_DECORATION = /[\s\-()[\].]/g;
const DIGITS_ONLY = /^\d+$/;

export type PhoneResult =
  | { ok: true; phone: string; /** The digits changed (a trunk 0 or an extension dropped). */ changed: boolean }
  | { ok: false; reason: string };

/**
 * As the reference core stores it (`Utils.normalizeIfPhoneNumber`: Google's libphonenumber, no default region,
 * E.164), through libphonenumber-js, its JavaScript port: `+640223334444` is `+64223334444`, `+44 (0)20 7946
 * 0958` is `+442079460958`. A number the library cannot parse is refused (the core would keep it as typed, and
 * nobody could sign in with it); a number without `+` is refused too: no country is guessed.
 */
export function normalisePhone(phone: string): PhoneResult {
  const compact = phone.replace(PHONE_DECORATION, '');
  if (compact === '') return { ok: false, reason: 'the phone number is empty' };
  if (DIGITS_ONLY.test(compact)) {
    return {
      ok: false,
      reason:
        'the phone number has no country code; write it in E.164 form (+ and the country code, e.g. +14155550123): the workbench never guesses a country',
    };
  }
  let parsed;
  try {
    parsed = parseForE164(phone.trim());
  } catch (err) {
    const why = err instanceof ParseError ? (PARSE_REASONS[err.message] ?? err.message) : String(err);
    return {
      ok: false,
      reason: `the phone number cannot be read as an international number (${why}); write it in E.164 form (e.g. +14155550123)`,
    };
  }
  return { ok: true, phone: parsed.number, changed: parsed.number !== compact };
}

const PARSE_REASONS: Record<string, string> = {
  INVALID_COUNTRY: 'no known country code after the +',
  NOT_A_NUMBER: 'it is not a phone number',
  TOO_SHORT: 'too short',
  TOO_LONG: 'too long',
  INVALID_LENGTH: 'a length no number of that country has',
};
