// The placeholder password: what the run imports (bcrypt-hashed) as the password of a login that waits for
// migration at first sign-in. Derived from the secret and the user's source id, it is never stored: the sign-in
// part recomputes it and asks the core whether it still opens the login. If not, a password was set since (by any
// path: the SDK, another backend, the dashboard) and the old password must never replace it.
import { createHmac } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { sameText } from '../hashes/constant-time.js';

/** Every placeholder starts so: the part needs to look at a password only when it does. */
export const PLACEHOLDER_PREFIX = 'amp1_';

/**
 * bcrypt's cost for the placeholder's hash: the lowest, 4. The value hashed is 256 bits derived from the secret,
 * so no cost makes it harder to find; a higher one would cost the run about 0.1 s a user (cost 10).
 */
export const PLACEHOLDER_BCRYPT_COST = 4;

/** `amp1_` and the base64url (no padding) HMAC-SHA256 of `placeholder:<sourceId>` under the secret: 48 characters. */
export function placeholderPassword(secret: string, sourceId: string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`placeholder:${sourceId}`, 'utf8').digest('base64url');
  return PLACEHOLDER_PREFIX + mac;
}

/** Whether `password` is the placeholder of `sourceId` (constant-time). */
export function isPlaceholder(secret: string, sourceId: string, password: string): boolean {
  return password.startsWith(PLACEHOLDER_PREFIX) && sameText(placeholderPassword(secret, sourceId), password);
}

/** The bcrypt hash the run imports for the login (a random salt each time; `$2a$04$`). */
export function placeholderHash(secret: string, sourceId: string): string {
  return bcrypt.hashSync(placeholderPassword(secret, sourceId), PLACEHOLDER_BCRYPT_COST);
}
