// The sync's plan for a changed user's email-password login and the verified flags of its email (plan-user.ts
// calls it): only what changed between the earlier export and the newer one is touched. A password-only change
// imports the hash under the email the login has in the core now (never the export's: an email the user changed in
// the core since stays); an email the export changed is moved only while the core still shows the earlier export's
// (else the user's own change is left, and said so). Two users swapping emails: the first to move finds its new
// email taken by the other, which this sync moves away too; it parks on a hold address (holdEmail) and finishes
// once the other has moved (strategy.ts retries it after the others).
// Invariant: an email the user changed in the core since the earlier export is never moved back.
import type { LoginMethod } from '../../core-client/types.js';
import { detectAlgorithm } from '../../hashes/formats.js';
import type { CanonicalUser } from '../../records/types.js';
import { signInEntry, type PlanOptions } from '../plan/plan.js';
import type { Step } from '../plan/steps.js';
import type { Part } from './fingerprint.js';

const norm = (s: string): string => s.trim().toLowerCase();

/** The address a login parks on while the email it moves to is still another migrated user's (never a real inbox). */
export function holdEmail(recipeUserId: string): string {
  return `sync-hold-${recipeUserId.toLowerCase()}@auth-migrate.invalid`;
}

export const isHoldEmail = (email: string | undefined, recipeUserId: string): boolean => email === holdEmail(recipeUserId);

export interface EmailPlan {
  steps: Step[];
  notes: string[];
  problems: Array<{ status: string; message: string }>;
}

/**
 * Steps for the email-password login (email, password) and the verified flags of the record's email on the logins
 * that carry it. `logins` are the user's logins by the plan's keys; `old` the previous export's record, when known.
 */
export function planEmailAndPassword(
  record: CanonicalUser,
  old: CanonicalUser | undefined,
  parts: ReadonlySet<Part>,
  logins: Map<string, LoginMethod>,
  plan: PlanOptions,
): EmailPlan {
  const out: EmailPlan = { steps: [], notes: [], problems: [] };
  const ep = logins.get('password');
  let moved = false;
  if (ep && parts.has('email') && record.email !== undefined && ep.email !== norm(record.email)) {
    const ours = !old?.email || ep.email === norm(old.email) || isHoldEmail(ep.email, ep.recipeUserId) || ep.email === undefined;
    if (ours) {
      out.steps.push({ kind: 'change-email', key: 'sync:email:password', recipeUserId: ep.recipeUserId, email: record.email });
      moved = true;
    } else
      out.notes.push(
        `the email of login ${ep.recipeUserId} was changed in the core since the earlier run: left (the export's new email is not applied over it)`,
      );
  }
  // The email the login carries once the steps above are done: the hash is imported under it.
  const emailAfter = moved ? norm(record.email!) : ep?.email;
  if (parts.has('password')) {
    const entry = signInEntry(record, plan);
    if (record.password && ep && emailAfter !== undefined) {
      // A login waiting for migration at first sign-in: its entry ends first (kept for a rollback with the
      // placeholder's hash), so the old password can never be set over the hash imported next.
      if (plan.unusableHashes === 'migrate-at-sign-in' || old?.legacyPassword)
        out.steps.push({
          kind: 'end-legacy-entry',
          key: 'sync:legacy-end',
          recipeUserId: ep.recipeUserId,
          ...(plan.signer ? { placeholderHash: plan.signer.placeholderHash(record.id) } : {}),
        });
      const algorithm = record.password.algorithm ?? detectAlgorithm(record.password.hash);
      const name = algorithm === 'external_scrypt' ? (plan.scryptAlgorithmName ?? 'external_scrypt') : (algorithm ?? 'bcrypt');
      out.steps.push({
        kind: 'replace-password-hash',
        key: 'sync:password',
        recipeUserId: ep.recipeUserId,
        email: emailAfter,
        passwordHash: record.password.hash,
        hashingAlgorithm: name,
      });
    } else if (record.password && !ep) {
      out.problems.push({
        status: 'LOGIN_ADDED',
        message: 'the export gives the user a password it had no email-password login for: a sync does not add a first login method',
      });
    } else if (entry && ep) {
      out.steps.push({ kind: 'replace-legacy-entry', key: 'sync:legacy-entry', recipeUserId: ep.recipeUserId, entry });
    } else if (!record.password && ep) {
      out.notes.push(
        `the export has no password for the user any more: its email-password login ${ep.recipeUserId} is left (a sync does not remove a first login method)`,
      );
    }
  }
  // Verified flags: when the export changed the flag, or the sync moved the email (a moved email is not verified).
  if (!(parts.has('verified') || moved) || record.email === undefined) return out;
  const want = norm(record.email);
  for (const ref of ['password', 'otp', 'phone']) {
    const lm = logins.get(ref);
    if (!lm || lm.email === undefined) continue;
    const emailNow = ref === 'password' ? emailAfter : lm.email;
    if (emailNow !== want) {
      if (ref === 'password' && parts.has('verified'))
        out.notes.push(`the verified flag of ${want} is not set on login ${lm.recipeUserId}: its email is another in the core now`);
      continue;
    }
    const verifiedNow = lm.verified && (ref !== 'password' || !moved);
    const verifyAs = ref === 'password' ? 'emailpassword' : 'passwordless';
    if (record.emailVerified === true && !verifiedNow) {
      out.steps.push({ kind: 'verify-email', key: `sync:verify:${ref}`, user: ref, recipeId: verifyAs, email: record.email });
    } else if (record.emailVerified !== true && verifiedNow && parts.has('verified')) {
      out.steps.push({ kind: 'unverify-email', key: `sync:unverify:${ref}`, user: ref, email: record.email });
    }
  }
  return out;
}
