// No answer believed on its word (issue 31): a proxy in front of a core may answer a write with another request's
// earlier body, or with a bare `{"status":"OK"}`, and apply nothing. So a create's answer must name the identity
// sent (the email, phone, third-party id, external id, device name) and a mapping's the ids sent; an answer that
// carries no identity at all (a mapping, a role, a contact, metadata) counts once the core is read back. Otherwise
// the rule throws ForeignAnswerError: execute.ts (and the bulk path) takes it as an unclear attempt, reads the core
// (the rule's `find`), and sends again when the effect is not there; a user it keeps meeting fails, never counts.
// Invariant: an answer that does not name the identity or ids sent is never counted: it is settled by reading the core.
import { CoreHttpError } from '../../../core-client/errors.js';
import type { CoreUser, LoginMethod } from '../../../core-client/types.js';

/**
 * An answer that is not this request's. A CoreHttpError of status 502 (a bad answer from behind a gateway), not
 * fatal: unclear to the exactly-once rule (a 5xx), and after the budget of attempts a failure of this one user.
 */
export class ForeignAnswerError extends CoreHttpError {
  constructor(method: string, path: string, detail: string) {
    super(502, `the answer is not this request's: ${detail}`, method, path, false);
    this.name = 'ForeignAnswerError';
    this.message = `the answer to ${method} ${path} is not this request's (${detail}); the core is read to settle it`;
  }
}

export function foreign(method: string, path: string, detail: string): never {
  throw new ForeignAnswerError(method, path, detail);
}

/** The answer's object, or an empty one when the answer is not an object. */
const fields = (answer: unknown): Record<string, unknown> =>
  typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};

/** The answer's `user`, when it looks like one. */
export function userOf(answer: unknown): CoreUser | undefined {
  const u = fields(answer).user as CoreUser | undefined;
  return typeof u === 'object' && u !== null && typeof u.id === 'string' && Array.isArray(u.loginMethods) ? u : undefined;
}

/** A login method that is this provider's login of this provider user id (whatever user holds it). */
export const isThirdPartyLogin =
  (t: { thirdPartyId: string; thirdPartyUserId: string }) =>
  (lm: LoginMethod): boolean =>
    lm.recipeId === 'thirdparty' && lm.thirdParty?.id === t.thirdPartyId && lm.thirdParty.userId === t.thirdPartyUserId;

/**
 * The login method matching `match` in the answer's user; with `recipeUserId`, it must also be the one the answer
 * names. Throws ForeignAnswerError when the answer holds no such login (a bare OK, another user's body).
 */
export function loginIn(
  answer: unknown,
  match: (lm: LoginMethod) => boolean,
  where: { method: string; path: string; sent: string },
  recipeUserId?: unknown,
): { user: CoreUser; method: LoginMethod } {
  const user = userOf(answer);
  const lm = user?.loginMethods.find((m) => match(m) && (recipeUserId === undefined || m.recipeUserId === recipeUserId));
  if (!user || !lm) foreign(where.method, where.path, `it names no login ${where.sent}`);
  return { user, method: lm };
}

/** Whether the core user is (or holds) one of these ids: its own id or one of its login methods' recipe user ids. */
export function userHolds(user: CoreUser | undefined, ids: string[]): boolean {
  return user !== undefined && (ids.includes(user.id) || user.loginMethods.some((m) => ids.includes(m.recipeUserId)));
}

/** A string field of the answer, or undefined. */
export const text = (answer: unknown, name: string): string | undefined => {
  const v = fields(answer)[name];
  return typeof v === 'string' ? v : undefined;
};

/** Two JSON values equal (for metadata values sent and answered). */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
