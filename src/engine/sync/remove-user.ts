// A user the newer export no longer has (or now disabled, under `--disabled skip`): listed, or with --remove-missing
// removed, exactly as a rollback would take it out (rollback/decide.ts decides, rollback/core.ts acts and reads back):
// only a user the migration created, and only while it is as the migration left it (no login, device or email
// changed or added since); what was there before the migration is never removed.
// Invariant: what was there before the migration, or changed since, is never removed.
import type { UserResult } from '../events.js';
import { ActionFailed, performAction, readUserState } from '../rollback/core.js';
import { decideUser } from '../rollback/decide.js';
import { runMadeOf } from '../rollback/made.js';
import type { Admitted, EngineContext } from '../strategy.js';
import { REMOVED_FP } from './chain.js';
import type { SyncWork } from './work.js';

export const REMOVE_STEP = 'sync:remove-user';

export async function removeUser(ctx: EngineContext, work: SyncWork, { input, journalled }: Admitted): Promise<UserResult | undefined> {
  const id = input.record.id;
  const why = work.removals.get(id)!;
  const base = { id, stepsRun: 0, stepsFromJournal: 0 };
  const what = why === 'gone' ? 'gone from the export' : 'disabled in the export (--disabled skip: not migrated)';
  if (!work.removeMissing) {
    const status = why === 'gone' ? 'GONE_FROM_EXPORT' : 'DISABLED_STILL_IN_CORE';
    return { ...base, outcome: 'skipped', status, message: `${what}, still in the core: left (--remove-missing removes it)` };
  }
  const made = runMadeOf(id, work.histories.get(id) ?? new Map());
  const state = await readUserState(ctx.core, made);
  const decision = decideUser(made, state);
  const done = (created: boolean, stId: string | undefined): UserResult => {
    ctx.journal.append({
      type: 'step',
      user: id,
      step: REMOVE_STEP,
      result: created ? 'created' : 'already',
      ids: stId ? { removedUser: stId } : {},
    });
    ctx.journal.append({ type: 'user', user: id, outcome: created ? 'imported' : 'alreadyPresent', fp: REMOVED_FP });
    if (created) work.tally('removed', 'created');
    return {
      ...base,
      outcome: created ? 'imported' : 'alreadyPresent',
      message: `${what}: ${created ? 'removed' : 'not in the core any more'}`,
    };
  };
  // Gone after this sync's own intent to remove it (a run killed between the removal and its line): removed by it.
  if (decision.kind === 'gone') return done(journalled?.intents?.has(REMOVE_STEP) === true, state.stId);
  if (decision.kind === 'kept') {
    return { ...base, outcome: 'skipped', status: 'CHANGED_SINCE', message: `${what}, but not removed: ${decision.reasons.join('; ')}` };
  }
  if (decision.kind !== 'remove') {
    const message = `${what}, but not removed: the migration did not create it (it was in the core before)`;
    return { ...base, outcome: 'skipped', status: 'NOT_CREATED_BY_MIGRATION', message };
  }
  let stepsRun = 0;
  // Write-ahead: the removal is named on the disk before its first request.
  await ctx.journal.appendDurable({
    type: 'intent',
    user: id,
    step: REMOVE_STEP,
    who: { kind: 'remove-user', ...(state.stId ? { userId: state.stId } : {}) },
  });
  for (const action of decision.actions) {
    await ctx.gate();
    if (ctx.isStopping()) return undefined;
    try {
      await performAction(ctx.core, action, false);
      stepsRun += 1;
    } catch (err) {
      if (!(err instanceof ActionFailed)) throw err;
      ctx.journal.append({ type: 'user', user: id, outcome: 'failed', step: REMOVE_STEP, status: 'NOT_REMOVED' });
      return { ...base, outcome: 'failed', step: REMOVE_STEP, status: 'NOT_REMOVED', message: `${what}: ${err.message}`, stepsRun };
    }
  }
  return { ...done(true, state.stId), stepsRun };
}
