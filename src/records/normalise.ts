// Normalisers for identifiers, done the way the core does (emails) or the way formats.md asks (phones):
// the validator stores the normalised values so duplicates are found on what the core will see.

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

const PHONE_DECORATION = /[\s\-()[\]]/g;
const E164 = /^\+[1-9]\d{1,14}$/;
const DIGITS_ONLY = /^\d+$/;

export type PhoneResult = { ok: true; phone: string } | { ok: false; reason: string };

/** E.164 after removing spaces, dashes and brackets. A number without `+` is refused: no country is guessed. */
export function normalisePhone(phone: string): PhoneResult {
  const compact = phone.replace(PHONE_DECORATION, '');
  if (E164.test(compact)) return { ok: true, phone: compact };
  if (compact === '') return { ok: false, reason: 'the phone number is empty' };
  if (DIGITS_ONLY.test(compact)) {
    return {
      ok: false,
      reason: 'the phone number has no country code; write it in E.164 form (+ and the country code, e.g. +14155550123): the workbench never guesses a country',
    };
  }
  if (compact.startsWith('+') && DIGITS_ONLY.test(compact.slice(1))) {
    return { ok: false, reason: 'the phone number is not E.164 (+, a first digit 1-9, at most 15 digits); correct it' };
  }
  return { ok: false, reason: 'the phone number has characters other than digits, spaces, dashes and brackets; write it in E.164 form (e.g. +14155550123)' };
}
