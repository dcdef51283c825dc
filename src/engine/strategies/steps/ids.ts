// What a step produces and how a user's ids are tracked across its steps: the recipe user id each step created,
// and the external id once mapped (the core answers with it from then on, so both count as "ours").
// Invariant: both the recipe user id and the external id, once mapped, are recognised as the user's own in any answer.
import type { StepResult } from '../../journal/journal.js';
import type { Step, StepRef } from '../../plan/steps.js';

export type StepOutcome =
  /** `unread`: the core said OK but the write is not read back yet; the caller reads it back (mapping-readback.ts). */
  | { ok: true; result: StepResult; ids: Record<string, string>; unread?: true }
  /** `restart`: the answer says the flow must start again (a passwordless code used up by an earlier attempt). */
  | { ok: false; status: string; message: string; restart?: boolean };

/** Ids produced so far for one user, by step key; `alias` holds the external id once mapped. */
export interface UserIds {
  recipe: Map<StepRef, string>;
  alias: Map<StepRef, string>;
  /**
   * First factors found on the user the external id names, but with other account info than the export's (the
   * email changed in the core since): not created again, and the steps about that account info are left alone.
   * The value says what changed, for the report.
   */
  changed: Map<StepRef, string>;
  /** Steps this run created (not found already there), from the step's result or the journal's. */
  created: Set<StepRef>;
  /** The caller reads the mapping the next step makes back itself, with others (mapping-readback.ts). */
  mappingReadLater?: boolean;
}

export function newUserIds(): UserIds {
  return { recipe: new Map(), alias: new Map(), changed: new Map(), created: new Set() };
}

/** The id later calls must use for a ref: the external id once mapped, else the recipe user id. */
export function resolveRef(ids: UserIds, ref: StepRef): string {
  const id = ids.alias.get(ref) ?? ids.recipe.get(ref);
  if (id === undefined) throw new Error(`internal: step ${ref} has produced no id yet`);
  return id;
}

/** Every id the core may answer for a ref: its SuperTokens id and, once mapped, its external id. */
export function idsOf(ids: UserIds, ref: StepRef): string[] {
  const out: string[] = [];
  const st = ids.recipe.get(ref);
  const ext = ids.alias.get(ref);
  if (st !== undefined) out.push(st);
  if (ext !== undefined) out.push(ext);
  return out;
}

/** Record what a completed step produced (also used to restore ids from the journal, with its result). */
export function applyStepIds(step: Step, produced: Record<string, string>, ids: UserIds, result?: StepResult): void {
  if (result === 'created') ids.created.add(step.key);
  if (produced.recipeUserId !== undefined) ids.recipe.set(step.key, produced.recipeUserId);
  if (step.kind === 'map-user-id' && produced.externalUserId !== undefined) ids.alias.set(step.user, produced.externalUserId);
}

export const done = (created: boolean, ids: Record<string, string> = {}): StepOutcome => ({
  ok: true,
  result: created ? 'created' : 'already',
  ids,
});
export const fail = (status: string, message: string, restart = false): StepOutcome => ({
  ok: false,
  status,
  message,
  ...(restart ? { restart } : {}),
});
