// The recipe-specific fields of a bulk-import login method (BulkImportUserUtils.getParsedLoginMethods): emailpassword
// (email, passwordHash + hashingAlgorithm or plainTextPassword, the hash's format), thirdparty, passwordless; the
// reference's texts, normalisation (email lower-cased and trimmed, phone E.164) and order.
import { isArgon2Prefix, isBcryptPrefix, parseExternalScrypt, parseHashingAlgorithmName } from '../../hashes/formats.js';
import { normaliseEmail, normalisePhone } from '../users.js';
import { field } from './fields.js';
import type { BulkLoginMethod } from './schema.js';

type Json = Record<string, unknown>;

function emailOf(raw: string | undefined, errors: string[]): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length > 255) errors.push(`email ${raw} is too long. Max length is 256.`);
  return normaliseEmail(raw);
}

/** PasswordHashingUtils.assertSuperTokensSupportInputPasswordHashFormat with the algorithm given. */
function hashFormatError(algorithm: string, hash: string): string | undefined {
  if (algorithm === 'bcrypt' && !isBcryptPrefix(hash)) return 'Password hash is in invalid BCrypt format';
  if (algorithm === 'argon2' && !isArgon2Prefix(hash)) return 'Password hash is in invalid Argon2 format';
  if (algorithm === 'external_scrypt' && !parseExternalScrypt(hash)) return 'Password hash is in invalid Firebase SCrypt format';
  return undefined;
}

function emailPasswordFields(lm: Json, errors: string[]): Partial<BulkLoginMethod> {
  const sfx = ' for an emailpassword recipe.';
  const rawEmail = field(lm, 'email', 'string', true, errors, sfx);
  let passwordHash = field(lm, 'passwordHash', 'string', false, errors, sfx);
  let hashingAlgorithm = field(lm, 'hashingAlgorithm', 'string', false, errors, sfx);
  const plainTextPassword = field(lm, 'plainTextPassword', 'string', false, errors, sfx);
  if ((passwordHash === undefined || hashingAlgorithm === undefined) && plainTextPassword === undefined) {
    errors.push('Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.');
  }
  const email = emailOf(rawEmail, errors);
  let algorithm: string | null = null;
  if (hashingAlgorithm !== undefined) {
    algorithm = parseHashingAlgorithmName(hashingAlgorithm);
    if (algorithm === null)
      errors.push('Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!');
    else hashingAlgorithm = hashingAlgorithm.trim().toUpperCase();
  }
  if (algorithm !== null && passwordHash !== undefined) {
    if (passwordHash.length > 256) errors.push('passwordHash is too long. Max length is 256.');
    passwordHash = passwordHash.trim();
    const formatError = hashFormatError(algorithm, passwordHash);
    if (formatError) errors.push(formatError);
  }
  return { email, passwordHash, hashingAlgorithm, plainTextPassword };
}

function thirdPartyFields(lm: Json, errors: string[]): Partial<BulkLoginMethod> {
  const sfx = ' for a thirdparty recipe.';
  const email = emailOf(field(lm, 'email', 'string', true, errors, sfx), errors);
  const thirdPartyId = field(lm, 'thirdPartyId', 'string', true, errors, sfx);
  const thirdPartyUserId = field(lm, 'thirdPartyUserId', 'string', true, errors, sfx);
  if (thirdPartyId !== undefined && thirdPartyId.length > 28) errors.push(`thirdPartyId ${thirdPartyId} is too long. Max length is 28.`);
  if (thirdPartyUserId !== undefined && thirdPartyUserId.length > 256)
    errors.push(`thirdPartyUserId ${thirdPartyUserId} is too long. Max length is 256.`);
  return { email, thirdPartyId, thirdPartyUserId };
}

function passwordlessFields(lm: Json, errors: string[]): Partial<BulkLoginMethod> {
  const sfx = ' for a passwordless recipe.';
  const email = emailOf(field(lm, 'email', 'string', false, errors, sfx), errors);
  const rawPhone = field(lm, 'phoneNumber', 'string', false, errors, sfx);
  if (rawPhone !== undefined && rawPhone.length > 256) errors.push(`phoneNumber ${rawPhone} is too long. Max length is 256.`);
  const phoneNumber = rawPhone === undefined ? undefined : normalisePhone(rawPhone);
  if (email === undefined && phoneNumber === undefined) errors.push('Either email or phoneNumber is required for a passwordless recipe.');
  return { email, phoneNumber };
}

export const RECIPE_FIELDS: Record<string, (lm: Json, errors: string[]) => Partial<BulkLoginMethod>> = {
  emailpassword: emailPasswordFields,
  thirdparty: thirdPartyFields,
  passwordless: passwordlessFields,
};
