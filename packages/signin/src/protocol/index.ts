// auth-migrate-signin/protocol: the parts of migration at first sign-in that need no SDK: the legacy entry's
// format, its MAC, the placeholder password and the legacy hash checkers. The CLI writes entries with it, the
// sign-in part (../index.ts) reads them with it; an app on another stack can follow docs/signin-protocol.md.
export {
  LEGACY_DONE_KEY,
  LEGACY_ENTRY_KEY,
  LEGACY_PREVIOUS_KEY,
  endingUpdate,
  readLegacyDone,
  readLegacyEntry,
  type EntryShape,
  type LegacyDone,
  type LegacyEndedVia,
  type LegacyEntry,
  type LegacyPrevious,
  type UnsignedLegacyEntry,
} from './entry.js';
export { MIN_SECRET_LENGTH, SIGNIN_SECRET_ENV, entryMac, entryMacValid, macEmail, macMessage, secretProblem, signEntry } from './mac.js';
export { PLACEHOLDER_BCRYPT_COST, PLACEHOLDER_PREFIX, isPlaceholder, placeholderHash, placeholderPassword } from './placeholder.js';
export { checkLegacyPassword, legacyCheckGap, type LegacyCheck, type LegacyCheckSettings } from '../hashes/check.js';
export type { FirebaseHashSettings, SpringSettings } from '../hashes/vendors.js';
export { LEGACY_ALGORITHMS, detectLegacyHash } from '../hashes/shapes.js';
export type { LegacyPassword } from '../hashes/types.js';
