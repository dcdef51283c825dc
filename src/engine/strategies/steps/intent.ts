// The write-ahead record of a step (journal.ts `intent` lines): which identity the step's request will carry, and
// whether a step needs an intent of its own on the disk before it is sent. Invariant: every request that can create
// or change something in the core is owned by an intent already on the disk, either its own or the intent of the
// user it acts on, when the migration created that user (everything on such a user is the migration's).
import type { UserIds } from './ids.js';
import type { Step } from '../../plan/steps.js';

/** Fields of a step that name what it creates or changes; never a hash, secret or code. */
const IDENTITY_FIELDS = [
  'email',
  'phoneNumber',
  'thirdPartyId',
  'thirdPartyUserId',
  'externalUserId',
  'recipeUserId',
  'deviceName',
  'role',
  'tenantId',
  'recipeId',
] as const;

/** The identity the step's request will carry: what a look-up in the core finds it by. */
export function stepIdentity(step: Step, ids: UserIds): Record<string, string> {
  const who: Record<string, string> = { kind: step.kind };
  const fields = step as unknown as Record<string, unknown>;
  for (const field of IDENTITY_FIELDS) {
    const value = fields[field];
    if (typeof value === 'string') who[field] = value;
  }
  for (const ref of ['user', 'primary', 'login'] as const) {
    const name = fields[ref];
    if (typeof name !== 'string') continue;
    const id = ids.alias.get(name) ?? ids.recipe.get(name);
    if (id !== undefined) who[ref === 'user' ? 'userId' : `${ref}Id`] = id;
  }
  return who;
}

/**
 * Whether the step acts only on a user this migration created (its first login method's step was `created`, now or
 * in the journal): the user's creation intent owns it already, so it needs no intent line of its own, and anything
 * of it found in the core is the migration's.
 */
export function onCreatedUser(step: Step, ids: UserIds): boolean {
  const fields = step as unknown as Record<string, unknown>;
  const user = fields.user;
  if (typeof user !== 'string' || !ids.created.has(user)) return false;
  // A link adds one user to another: both must be the migration's.
  const primary = fields.primary;
  return typeof primary !== 'string' || ids.created.has(primary);
}
