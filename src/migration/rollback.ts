// Carrying out a rollback (the `rollback` command and the wizard's results screen call this): the actions of
// rollback-plan.ts against the core, each recorded in `<journal>.rollback.ndjson` (0600) once done, so a rerun goes on
// where it stopped. The run's journal lock is held throughout: a run still going refuses it, and no run starts meanwhile.
import { existsSync, readFileSync } from 'node:fs';
import type { CoreClient } from '../core-client/types.js';
import { UserError } from '../errors.js';
import { acquireLock } from '../files/lock.js';
import { openPrivate } from '../files/private.js';
import { actionKey, describeAction, planUserRollback, readJournalSteps, type RollbackAction, type UserRollback } from './rollback-plan.js';

export interface RollbackSummary {
  users: number;
  actions: number;
  performed: number;
  doneBefore: number;
  failed: string[];
  notUndone: string[];
  log: string;
}

export interface PreparedRollback {
  plans: UserRollback[];
  done: Set<string>;
  log: string;
  release(): Promise<void>;
}

/** Lock the journal, check it belongs to `target` (describeTarget's text), and plan the actions. */
export async function prepareRollback(journalPath: string, target: string, by: string): Promise<PreparedRollback> {
  const lock = await acquireLock(journalPath, 'the journal', by);
  try {
    const { identity, users } = await readJournalSteps(journalPath);
    if (identity && identity.target !== target) {
      throw new UserError(`the journal ${journalPath} belongs to a run into ${identity.target}, not ${target}: give the run's own target`);
    }
    const plans = [...users].map(([user, steps]) => planUserRollback(user, steps)).filter((p) => p.actions.length + p.notUndone.length > 0);
    const log = `${journalPath}.rollback.ndjson`;
    const done = new Set(
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => (JSON.parse(l) as { key: string }).key)
        : [],
    );
    return { plans, done, log, release: () => lock.release() };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

async function perform(core: CoreClient, a: RollbackAction): Promise<void> {
  const post = (path: string, body: unknown) => core.raw({ method: 'POST', path, scope: 'app', body });
  switch (a.kind) {
    case 'unlink':
    case 'demote':
      await post('/recipe/accountlinking/user/unlink', { recipeUserId: a.userId });
      return;
    case 'remove-device':
      await core.removeTotpDevice(a.userId, a.deviceName);
      return;
    case 'remove-mapping':
      await post('/recipe/userid/map/remove', { userId: a.externalUserId, userIdType: 'EXTERNAL' });
      return;
    case 'remove-user':
      await post('/user/remove', { userId: a.userId, removeAllLinkedAccounts: a.removeAllLinkedAccounts });
      return;
  }
}

/** Carry the prepared actions out (skipping those done before); a user's later actions wait for its earlier ones. */
export async function performRollback(core: CoreClient, prepared: PreparedRollback): Promise<RollbackSummary> {
  const { plans, done, log } = prepared;
  const fh = await openPrivate(log, 'a');
  const summary: RollbackSummary = { users: plans.length, actions: 0, performed: 0, doneBefore: 0, failed: [], notUndone: [], log };
  try {
    for (const p of plans) {
      summary.notUndone.push(...p.notUndone.map((n) => `user ${p.user}: ${n}`));
      for (const a of p.actions) {
        summary.actions += 1;
        const k = actionKey(p.user, a);
        if (done.has(k)) {
          summary.doneBefore += 1;
          continue;
        }
        try {
          await perform(core, a);
          await fh.appendFile(JSON.stringify({ key: k }) + '\n');
          summary.performed += 1;
        } catch (e) {
          summary.failed.push(`user ${p.user}: ${describeAction(a)}: ${(e as Error).message}`);
          if ((e as { fatal?: boolean }).fatal) throw e;
          break;
        }
      }
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  return summary;
}
