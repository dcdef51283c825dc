// The rollback operation (the `rollback` command and the wizard's undo both call it): prepare (lock the journal,
// read what the run made), decide (read-only: per user remove, undo its additions, keep it because it changed since,
// or gone; what --dry-run and a confirmation show), perform (rollback-perform.ts: the same decisions taken again per
// user right before acting, each action read back, each finished user in `<journal>.rollback.ndjson`). A core that
// holds none of the journal's users (reset, or another core at that URL) is refused before anything is removed; the
// undo retires the journal (rollback-retire.ts). docs/migration.md §6b.
import type { CoreClient } from '../core-client/types.js';
import { UserError } from '../errors.js';
import { acquireLock } from '../files/lock.js';
import { forEachPooled } from './pool.js';
import { readUserState } from './rollback-core.js';
import { decideUser } from './rollback-decide.js';
import { progressEmitter } from './rollback-events.js';
import { readRollbackLog } from './rollback-log.js';
import { madeAnything, readJournalSteps, runMadeOf, stepsOf, type RunMade } from './rollback-plan.js';
import { isRetired, locateJournal, logPathOf, moveLog } from './rollback-retire.js';
import {
  count,
  emptyDecisions,
  refusal,
  toAsync,
  unsettledCheck,
  type PreparedRollback,
  type RollbackDecisions,
  type RollbackOptions,
} from './rollback-tally.js';
import { attachSyncMade } from './sync/rollback.js';
import { readJournalHead } from './sync/base.js';

export { LISTED, type PreparedRollback, type RollbackDecisions, type RollbackOptions, type RollbackSummary } from './rollback-tally.js';
export { performRollback } from './rollback-perform.js';

/**
 * Lock the journal, check it belongs to `target` (describeTarget's text; undefined: the journal's own), and read
 * what the run made. A journal whose undo began is found under its retired name.
 */
export async function prepareRollback(journalPath: string, target: string | undefined, by: string): Promise<PreparedRollback> {
  const where = locateJournal(journalPath);
  if (!where) throw new UserError(`--journal ${journalPath} does not exist (nor a rolled-back journal of it)`);
  const lock = await acquireLock(where.live, 'the journal', by);
  try {
    // Located again under the lock: an undo that began meanwhile retired it.
    const { journal, live } = locateJournal(journalPath) ?? where;
    if (isRetired(journal)) await moveLog(live, journal);
    const read = await readJournalSteps(journal);
    if (target !== undefined && read.identity.target !== target) {
      throw new UserError(`the journal ${journal} belongs to a run into ${read.identity.target}, not ${target}: give the run's own target`);
    }
    // A sync's journal (the users it changed: few) is read whole, and the users it changed or removed are undone by
    // sync/rollback.ts's rules; any other journal is decoded user by user as it is walked.
    let made: () => Iterable<RunMade>;
    if ((await readJournalHead(journal))?.sync) {
      const users = new Map([...read.users].map(([user, packed]) => [user, stepsOf(packed)]));
      const list = await attachSyncMade(journal, users, [...users].map(([user, steps]) => runMadeOf(user, steps)).filter(madeAnything));
      made = () => list;
    } else {
      made = function* () {
        for (const [user, packed] of read.users) {
          const m = runMadeOf(user, stepsOf(packed));
          if (madeAnything(m)) yield m;
        }
      };
    }
    let count = 0;
    for (const m of made()) if (m) count++;
    const doneBefore = await readRollbackLog(logPathOf(journal));
    return { journal, live, identity: read.identity, count, made, doneBefore, unsettled: read.unsettled, release: () => lock.release() };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/**
 * Every user's decision, read-only (what --dry-run lists and a confirmation counts). Throws the refusal when the
 * core holds none of the journal's users.
 */
export async function decideRollback(core: CoreClient, p: PreparedRollback, options: RollbackOptions = {}): Promise<RollbackDecisions> {
  const d = emptyDecisions(p.count);
  unsettledCheck(p, d, options);
  const tick = progressEmitter(options.onEvent, 'checking', p.count, d);
  let done = 0;
  let found = 0;
  let looked = 0;
  await forEachPooled(toAsync(p.made()), options.concurrency ?? 8, async (m) => {
    const state = await readUserState(core, m);
    if (m.ref !== undefined && !p.doneBefore.done.has(m.user)) {
      looked++;
      if (state.user) found++;
    }
    const decision = decideUser(m, state, options);
    count(d, decision, p.doneBefore.done.has(m.user));
    if (decision.kind === 'remove') d.removed++;
    else if (decision.kind === 'undo') d.undone++;
    options.onDecision?.(decision);
    tick(++done);
  });
  if (looked > 0 && found === 0) throw refusal(p, looked);
  return d;
}
