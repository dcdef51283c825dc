// How a rollback recognises a user as the run left it: the run journals a short fingerprint of each login method
// it creates (its recipe and account info: email, phone, third-party id; a digest, never the value) and, on the bulk
// paths, the fingerprints and TOTP device names of the whole user. A login method whose fingerprint the core no
// longer shows had its email (phone, provider email) changed since; one with no fingerprint was added since.
// Invariant: a fingerprint is a digest: it never holds an email, phone or id in clear.
import crypto, { createHash } from 'node:crypto';
import type { BulkLoginMethodBody, BulkUserBody } from '../../core-client/import-bodies.js';
import type { LoginMethod } from '../../core-client/types.js';
import type { Step } from '../plan/steps.js';

const norm = (s: string): string => s.trim().toLowerCase();
/** One-shot hashing (Node 20.12+; the same digest) costs about half of a Hash object's: a staged run takes one a user. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const digest = (text: string): string =>
  (oneShot ? oneShot('sha256', text, 'hex') : createHash('sha256').update(text).digest('hex')).slice(0, 12);
/** `e:`, `t:` or `p:` and the digest: the recipe stays readable, so a changed login pairs with its old fingerprint. */
const tagged = (recipeId: string, text: string): string => `${recipeId.charAt(0)}:${digest(text)}`;
/** The recipe letter of a fingerprint. */
export const recipeOfSig = (sig: string): string => sig.split(':', 1)[0] ?? '';

interface AccountInfo {
  recipeId: string;
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
}

/** The fingerprint of one way to reach a login method (email, phone, or provider + its user id and email). */
function formsOf(a: AccountInfo): string[] {
  if (a.recipeId === 'thirdparty')
    return [tagged(a.recipeId, `tp|${a.thirdPartyId ?? ''}|${a.thirdPartyUserId ?? ''}|${norm(a.email ?? '')}`)];
  const out: string[] = [];
  if (a.email !== undefined) out.push(tagged(a.recipeId, `${a.recipeId}|email|${norm(a.email)}`));
  if (a.phoneNumber !== undefined) out.push(tagged(a.recipeId, `${a.recipeId}|phone|${a.phoneNumber.trim()}`));
  return out;
}

/** Every fingerprint the core's login method answers to (a passwordless one: its email and its phone). */
export function coreMethodForms(lm: LoginMethod): string[] {
  return formsOf({
    recipeId: lm.recipeId,
    ...(lm.email !== undefined ? { email: lm.email } : {}),
    ...(lm.phoneNumber !== undefined ? { phoneNumber: lm.phoneNumber } : {}),
    ...(lm.thirdParty ? { thirdPartyId: lm.thirdParty.id, thirdPartyUserId: lm.thirdParty.userId } : {}),
  });
}

/** The journal ids a step that creates a login method adds to its own: `{ sig }`; nothing for other steps. */
export function stepShapeIds(step: Step): Record<string, string> {
  let a: AccountInfo | undefined;
  if (step.kind === 'import-password') a = { recipeId: 'emailpassword', email: step.email };
  else if (step.kind === 'thirdparty-signinup')
    a = { recipeId: 'thirdparty', email: step.email, thirdPartyId: step.thirdPartyId, thirdPartyUserId: step.thirdPartyUserId };
  else if (step.kind === 'passwordless-signinup')
    a = { recipeId: 'passwordless', ...(step.email !== undefined ? { email: step.email } : { phoneNumber: step.phoneNumber! }) };
  const sig = a ? formsOf(a)[0] : undefined;
  return sig ? { sig } : {};
}

function bulkMethodSig(m: BulkLoginMethodBody): string {
  const a: AccountInfo = { recipeId: m.recipeId };
  if (m.recipeId === 'thirdparty') Object.assign(a, { thirdPartyId: m.thirdPartyId, thirdPartyUserId: m.thirdPartyUserId, email: m.email });
  else if (m.email !== undefined) a.email = m.email;
  else if (m.phoneNumber !== undefined) a.phoneNumber = m.phoneNumber;
  return formsOf(a)[0] ?? '';
}

/**
 * The journal ids of a user imported in one piece (`--via bulk|bulk-staged`), beside its `recipeUserId`: `methods`,
 * the fingerprints of its login methods, and `devices`, the names of its TOTP devices (JSON arrays).
 */
export function bulkShapeIds(body: BulkUserBody): Record<string, string> {
  return {
    methods: JSON.stringify(body.loginMethods.map(bulkMethodSig)),
    devices: JSON.stringify((body.totpDevices ?? []).map((d) => d.deviceName ?? '')),
  };
}

/** A JSON array of strings from a journal id, or undefined when absent or not one. */
export function idList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  try {
    const v = JSON.parse(value) as unknown;
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
  } catch {
    return undefined;
  }
}
