// The write-ahead record of a step (journal.ts `intent` lines): which identity the step's request will carry, and
// whether a step needs an intent of its own on the disk before it is sent. Invariant: every request that can create
// or change something in the core is owned by an intent already on the disk, either its own or the intent of the
// user it acts on, when the migration created that user (everything on such a user is the migration's). Also the
// lines a step puts in the journal (its intent, its completion) and the intents written ahead for a window of users.
import type { JournalEntry } from '../../journal/journal.js';
import { planUserSteps } from '../../plan/plan.js';
import type { Step } from '../../plan/steps.js';
import { stepShapeIds } from '../../rollback/shape.js';
import type { Admitted, EngineContext } from '../../strategy.js';
import { newUserIds, type StepOutcome, type UserIds } from './ids.js';
import type { KnownAbsent } from './execute.js';

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

/**
 * A step's login fingerprint (rollback/shape.ts: a SHA-256 per form), taken once for its intent and its step line:
 * the step object lives from the user's plan to its last step, and goes with it.
 */
const shapes = new WeakMap<Step, Record<string, string>>();
export function shapeOf(step: Step): Record<string, string> {
  let shape = shapes.get(step);
  if (shape === undefined) shapes.set(step, (shape = stepShapeIds(step)));
  return shape;
}

/** A completed step's line; a login method the run created carries its fingerprint, so a rollback can tell it was changed since. */
export function stepLine(user: string, step: Step, out: Pick<Extract<StepOutcome, { ok: true }>, 'result' | 'ids'>): JournalEntry {
  const ids = out.result === 'created' ? { ...out.ids, ...shapeOf(step) } : out.ids;
  return { type: 'step', user, step: step.key, result: out.result, ids };
}

/** A step's write-ahead line; it carries the login's fingerprint too, so a rollback that settles it tells changes since. */
export const intentOf = (user: string, step: Step, ids: UserIds): JournalEntry => ({
  type: 'intent',
  user,
  step: step.key,
  who: { ...stepIdentity(step, ids), ...shapeOf(step) },
});

/** Steps that create a login method: their users' look-up is what the engine's knowledge of the core answers. */
export const CREATES_LOGIN = new Set<Step['kind']>(['import-password', 'thirdparty-signinup', 'passwordless-signinup']);

/**
 * The intents of the login methods the engine knows absent from the core, for a window of users, in one sync. A
 * user an earlier run began goes its own way (its intents are settled from the core, one by one).
 */
export async function writeAheadSteps(ctx: EngineContext, knownAbsent: KnownAbsent, users: Admitted[]): Promise<void> {
  let wrote = false;
  for (const user of users) {
    if (user.journalled) continue;
    try {
      user.planned = planUserSteps(user.input.record, ctx.plan);
    } catch {
      continue; // its plan error is reported when its turn comes
    }
    const ids = newUserIds();
    for (const step of user.planned) {
      if (!CREATES_LOGIN.has(step.kind) || !(await knownAbsent(step))) continue;
      ctx.journal.append(intentOf(user.input.record.id, step, ids));
      (user.prewritten ??= new Set()).add(step.key);
      wrote = true;
    }
  }
  if (wrote) await ctx.journal.flush();
}
