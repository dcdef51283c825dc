// The rollback operation (the `rollback` command and the wizard's undo both call it): prepare (lock the journal,
// read what the run made), decide (read-only: per user remove, undo its additions, keep it because it changed since,
// or gone; what --dry-run and a confirmation show), perform (perform.ts: the same decisions taken again per
// user right before acting, each action read back, each finished user in `<journal>.rollback.ndjson`). A core that
// holds none of the journal's users (reset, or another core at that URL) is refused before anything is removed; the
// undo retires the journal (retire.ts). docs/migration.md §6b.
// Invariant: nothing is removed from a core that holds none of the journal's users, nor before the decisions are made.
import type { CoreClient } from '../../core-client/types.js';
import { UserError } from '../../errors.js';
import { acquireLock } from '../../files/lock.js';
import { forEachPooled } from '../pace/pool.js';
import { readUserState } from './core.js';
import { decideUser } from './decide.js';
import { progressEmitter } from './events.js';
import { readRollbackLog } from './log.js';
import { madeAnything, readJournalSteps, runMadeOf, stepsOf, type RunMade } from './made.js';
import { isRetired, locateJournal, logPathOf, moveLog } from './retire.js';
import {
  count,
  emptyDecisions,
  refusal,
  toAsync,
  unsettledCheck,
  type PreparedRollback,
  type RollbackDecisions,
  type RollbackOptions,
} from './tally.js';
import { attachSyncMade } from './sync/state.js';
import { settleIntents } from './settle.js';
import { readJournalHead } from '../sync/base.js';

export { LISTED, type PreparedRollback, type RollbackDecisions, type RollbackOptions, type RollbackSummary } from './tally.js';
export { performRollback } from './perform.js';

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
    let settle: PreparedRollback['settle'];
    if ((await readJournalHead(journal))?.sync) {
      if (read.unresolved.size > 0) throw unresolvedSync(journal, [...read.unresolved.keys()]);
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
      // Intents the run left unresolved are settled from the core before the first decision (settle.ts).
      settle = async (core) => {
        if (read.unresolved.size === 0) return;
        await settleIntents(core, read.unresolved, read.users);
        prepared.count = countOf(made);
      };
    }
    const doneBefore = await readRollbackLog(logPathOf(journal));
    const prepared: PreparedRollback = {
      journal,
      live,
      identity: read.identity,
      count: countOf(made),
      made,
      doneBefore,
      unsettled: read.unsettled,
      ...(settle ? { settle } : {}),
      release: () => lock.release(),
    };
    return prepared;
  } catch (err) {
    await lock.release();
    throw err;
  }
}

function countOf(made: () => Iterable<RunMade>): number {
  let count = 0;
  for (const m of made()) if (m) count++;
  return count;
}

const unresolvedSync = (journal: string, users: string[]): UserError =>
  new UserError(
    `the sync journal ${journal} names ${users.length} users (${users.slice(0, 3).join(', ')}${users.length > 3 ? ', ...' : ''}) ` +
      'whose change was under way when the sync stopped. Run the same sync command once (it settles them from the core and ' +
      'finishes), then roll back. Nothing was removed.',
  );

/**
 * Every user's decision, read-only (what --dry-run lists and a confirmation counts). Throws the refusal when the
 * core holds none of the journal's users.
 */
export async function decideRollback(core: CoreClient, p: PreparedRollback, options: RollbackOptions = {}): Promise<RollbackDecisions> {
  await p.settle?.(core);
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
    count(d, decision, p.doneBefore.done.has(m.user) || p.doneBefore.intended.has(m.user));
    if (decision.kind === 'remove') d.removed++;
    else if (decision.kind === 'undo') d.undone++;
    options.onDecision?.(decision);
    tick(++done);
  });
  if (looked > 0 && found === 0) throw refusal(p, looked);
  return d;
}
