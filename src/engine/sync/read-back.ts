// A sync's write counts once the core shows it: after each step the strategy (strategy.ts) reads the part back
// before the step's journal line says it is done, whatever the answer said (a proxy or a core answering a bare
// `{"status":"OK"}` without applying anything is caught here). Each kind is read by its rule's own look-up
// (strategies/steps/rules.ts, sync/step-rules.ts: the email of a login, a verified flag, a device by name and settings, a
// role, metadata keys, a login linked to the user); a hash cannot be read back, so a replaced password is checked
// by the login the import must have hit: still there, still under the email the hash was imported for.
// Invariant: a sync step is journalled as done only after the core shows it.
import type { CoreClient } from '../../core-client/types.js';
import { STEP_RULES, type StepRule } from '../strategies/steps/rules.js';
import type { UserIds } from '../strategies/steps/ids.js';
import type { Step } from '../plan/steps.js';

const norm = (s: string): string => s.trim().toLowerCase();

/**
 * Kinds whose rule (sync/step-rules.ts) already reads its effect back before it answers done: not read twice.
 * `create-role` makes no change to the user: the assignment after it is read back.
 */
const READ_IN_SEND = new Set<Step['kind']>([
  'create-role',
  'change-email',
  'unverify-email',
  'update-thirdparty',
  'remove-totp-device',
  'remove-login',
  'set-metadata',
  'remove-role',
]);

/** Undefined when the core shows the step's effect; else what it shows instead (no value of a secret). */
export async function readBackStep(
  step: Step,
  ids: UserIds,
  core: CoreClient,
  answered: Record<string, string>,
): Promise<string | undefined> {
  if (step.kind === 'create-role' || READ_IN_SEND.has(step.kind)) return undefined;
  if (step.kind === 'replace-password-hash') {
    const r = await core.getUserById(step.recipeUserId);
    const lm = r.status === 'OK' ? r.user.loginMethods.find((m) => m.recipeUserId === step.recipeUserId) : undefined;
    if (!lm) return `the email-password login ${step.recipeUserId} the hash was imported for is not in the core`;
    return lm.email === norm(step.email)
      ? undefined
      : `the login ${step.recipeUserId} has another email than the one the hash was imported under`;
  }
  const rule = STEP_RULES[step.kind] as StepRule<Step>;
  if (!rule.find) return undefined;
  const found = await rule.find(step, ids, core);
  if (!found) return `the core answered OK to ${step.key} but does not show it`;
  // A login the step created: the one found must be the one the answer named.
  const said = answered.recipeUserId;
  const seen = found.ids.recipeUserId;
  if (said !== undefined && seen !== undefined && said !== seen)
    return `the core answered ${step.key} with login ${said}, but holds it as ${seen}`;
  return undefined;
}
