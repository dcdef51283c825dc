// Check a typed password against a legacy hash (one the core cannot import), for migration at first sign-in: the
// algorithm names the validator and the readers give (src/hashes/legacy.ts, the Firebase, Keycloak, Clerk and
// Supabase readers) mapped to a checker. Comparisons are constant-time; the hash is never part of a message.
import type { LegacyPassword } from './types.js';
import { detectLegacyHash } from './shapes.js';
import {
  type Checker,
  cryptChecker,
  djangoBcryptSha256,
  djangoPbkdf2,
  djangoSalted,
  keycloakPbkdf2,
  ldapChecker,
  passlibPbkdf2,
  plainDigest,
} from './families.js';
import { type FirebaseHashSettings, type SpringSettings, firebaseChecker, springChecker } from './vendors.js';
import { clerkPbkdf2Sha1, clerkPbkdf2Sha256, fbscryptChecker, phpassChecker, werkzeugChecker } from './web.js';

export type { FirebaseHashSettings, SpringSettings } from './vendors.js';

/** Settings kept out of the records and files (keys, peppers), from the app's configuration. */
export interface LegacyCheckSettings {
  firebase?: FirebaseHashSettings;
  spring?: SpringSettings;
}

export type LegacyCheck = { result: 'match' } | { result: 'mismatch' } | { result: 'unsupported'; reason: string };

const NAMED: Record<string, Checker> = {
  md5: plainDigest('md5'),
  sha1: plainDigest('sha1'),
  sha224: plainDigest('sha224'),
  sha256: plainDigest('sha256'),
  sha384: plainDigest('sha384'),
  sha512: plainDigest('sha512'),
  django_pbkdf2: djangoPbkdf2,
  django_salted: djangoSalted,
  django_bcrypt_sha256: djangoBcryptSha256,
  bcrypt_sha256_django: djangoBcryptSha256,
  passlib_pbkdf2: passlibPbkdf2,
  md5_crypt: cryptChecker,
  sha256_crypt: cryptChecker,
  sha512_crypt: cryptChecker,
  ldap: ldapChecker,
  // Keycloak's credential algorithms.
  pbkdf2: keycloakPbkdf2('sha1'),
  'pbkdf2-sha1': keycloakPbkdf2('sha1'),
  'pbkdf2-sha256': keycloakPbkdf2('sha256'),
  'pbkdf2-sha512': keycloakPbkdf2('sha512'),
  // Web frameworks' forms, under the names the shapes give and Clerk's password_hasher names.
  phpass: phpassChecker,
  werkzeug: werkzeugChecker,
  scrypt_werkzeug: werkzeugChecker,
  pbkdf2_sha256: clerkPbkdf2Sha256,
  pbkdf2_sha1: clerkPbkdf2Sha1,
  fbscrypt: fbscryptChecker,
};

function checkerFor(legacy: LegacyPassword, settings: LegacyCheckSettings): { checker: Checker; legacy: LegacyPassword } | undefined {
  const name = legacy.algorithm.trim().toLowerCase();
  if (name === 'spring') return { checker: springChecker(settings.spring), legacy };
  if (name.startsWith('firebase_')) {
    const checker = firebaseChecker(name, settings.firebase);
    return checker ? { checker, legacy } : undefined;
  }
  const named = NAMED[name];
  if (named) return { checker: named, legacy };
  // A vendor's own name for a form the shapes recognise (Clerk's pbkdf2_sha256_django, Supabase's `$1$`...): the
  // hash says what it is.
  const detected = detectLegacyHash(legacy.hash);
  if (detected && detected.algorithm !== name) return checkerFor(detected, settings);
  return undefined;
}

/**
 * Whether an algorithm has a checker (without a password): a reason when it has none. Cognito exports no hash: its
 * users are checked by the old pool through the app's function (the sign-in part's `cognito` option), not here.
 */
export function legacyCheckGap(legacy: LegacyPassword, settings: LegacyCheckSettings = {}): string | undefined {
  if (legacy.algorithm.trim().toLowerCase() === 'aws_cognito') return undefined;
  return checkerFor(legacy, settings) ? undefined : `no checker for the algorithm ${legacy.algorithm.slice(0, 40)}`;
}

export async function checkLegacyPassword(
  legacy: LegacyPassword,
  password: string,
  settings: LegacyCheckSettings = {},
): Promise<LegacyCheck> {
  const found = checkerFor(legacy, settings);
  if (!found) return { result: 'unsupported', reason: `no checker for the algorithm ${legacy.algorithm.slice(0, 40)}` };
  let outcome;
  try {
    outcome = await found.checker(found.legacy, password);
  } catch (err) {
    // Library errors describe the input's shape, never the password; keep them short all the same.
    return {
      result: 'unsupported',
      reason: `the ${legacy.algorithm.slice(0, 40)} hash could not be checked (${String((err as Error).message).slice(0, 80)})`,
    };
  }
  if (typeof outcome === 'string') return { result: 'unsupported', reason: outcome };
  return outcome ? { result: 'match' } : { result: 'mismatch' };
}
