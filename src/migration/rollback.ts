// The rollback operation (the `rollback` command and the wizard's undo both call it): prepare (lock the journal,
// read what the run made), decide (read-only: per user remove, undo its additions, keep it because it changed since,
// or gone; what --dry-run and a confirmation show), perform (the same decisions taken again per user right before
// acting, each action read back, each finished user in `<journal>.rollback.ndjson`). A core that holds none of the
// journal's users (reset, or another core at that URL) is refused before anything is removed; the undo retires the
// journal (rollback-retire.ts). docs/migration.md §6b.
import type { CoreClient } from '../core-client/types.js';
import { UserError } from '../errors.js';
import { acquireLock } from '../files/lock.js';
import { forEachPooled } from './pool.js';
import { ActionFailed, listedIds, performAction, readUserState, usersInTenant } from './rollback-core.js';
import { decideUser, describeAction, type UserDecision, type UserState } from './rollback-decide.js';
import { emptyCounts, progressEmitter, type RollbackCounts, type RollbackEventListener } from './rollback-events.js';
import { openRollbackLog, readRollbackLog, type LoadedLog } from './rollback-log.js';
import { madeAnything, readJournalSteps, runMadeOf, stepsOf, type RunMade } from './rollback-plan.js';
import { isRetired, locateJournal, logPathOf, moveLog, retireJournal } from './rollback-retire.js';
import type { RunIdentity } from './journal.js';
import { attachSyncMade } from './sync/rollback.js';
import { readJournalHead } from './sync/base.js';

export interface PreparedRollback {
  /** The journal undone: the path the run wrote, or its retired name once an undo began. */
  journal: string;
  /** The path the run wrote (its lock is held while the rollback goes). */
  live: string;
  identity: RunIdentity;
  /** Users the run made anything of. */
  count: number;
  /** What the run made, user by user in journal order, decoded from the journal as it is walked. */
  made(): Iterable<RunMade>;
  /** Users whose undo an earlier rollback of this journal finished. */
  doneBefore: LoadedLog;
  /** `--via bulk-staged` users in an upload when the run stopped, not settled since (rollback-plan.ts). */
  unsettled: string[];
  release(): Promise<void>;
}

export interface RollbackOptions {
  /** Also remove the run's own login methods, devices and mapping from users changed since. */
  force?: boolean;
  /** Users checked or undone at once (default 8). */
  concurrency?: number;
  onEvent?: RollbackEventListener;
  /** Each user's decision as it is made (decideRollback: what --dry-run prints). */
  onDecision?: (decision: UserDecision) => void;
}

/** How many kept users, failures and notes a summary lists (its counts are exact). */
export const LISTED = 1000;

export interface RollbackDecisions extends RollbackCounts {
  /** Users the run made anything of. */
  users: number;
  /** Users an earlier rollback of this journal finished (among `gone`). */
  doneBefore: number;
  actions: number;
  /** Users kept because they changed since, each with why (the first LISTED; `kept` counts them all). */
  keptUsers: Array<{ user: string; reasons: string[] }>;
  /** What the run did that a rollback cannot undo, per user. */
  notUndone: string[];
}

export interface RollbackSummary extends RollbackDecisions {
  /** Users whose undo failed, each with the action and what the core still shows (the first LISTED). */
  failed: number;
  failures: string[];
  log: string;
  journal: string;
}

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

function emptyDecisions(users: number): RollbackDecisions {
  return { users, doneBefore: 0, actions: 0, keptUsers: [], notUndone: [], ...emptyCounts() };
}

function count(d: RollbackDecisions, decision: UserDecision, doneBefore: boolean): void {
  for (const n of decision.notes) if (d.notUndone.length < LISTED) d.notUndone.push(`user ${decision.user}: ${n}`);
  if (decision.kind === 'kept') {
    if (d.keptUsers.length < LISTED) d.keptUsers.push({ user: decision.user, reasons: decision.reasons });
    d.kept++;
  } else if (decision.kind === 'gone' || decision.kind === 'nothing') {
    if (decision.kind === 'gone') d.gone++;
    if (doneBefore) d.doneBefore++;
  } else if (decision.kind === 'remove' || decision.kind === 'undo') d.actions += decision.actions.length;
}

const refusal = (p: PreparedRollback, looked: number): UserError =>
  new UserError(
    `the core holds none of the ${looked} users the journal ${p.journal} says its run made or changed: it was reset, or ` +
      'this is another core at the same address. Nothing was removed. Point at the core this journal belongs to.',
  );

/**
 * Users a `--via bulk-staged` run had in an upload when it stopped cannot be found from the journal alone (it
 * names no login of theirs): refused before anything is done, unless --force, which goes on and lists them.
 */
function unsettledCheck(p: PreparedRollback, d: RollbackDecisions, options: RollbackOptions): void {
  const n = p.unsettled.length;
  if (n === 0) return;
  if (!options.force) {
    throw new UserError(
      `the journal ${p.journal} names ${n} users (${p.unsettled.slice(0, 3).join(', ')}${n > 3 ? ', ...' : ''}) that were in an upload ` +
        "to the core's staging list when the run stopped: whether the core's job imported them cannot be told from the journal. " +
        'Run the same run command once (it settles them, and goes on with the migration), then roll back; or roll back with ' +
        '--force to undo the rest and leave these listed. Nothing was removed.',
    );
  }
  for (const user of p.unsettled.slice(0, LISTED))
    d.notUndone.push(`user ${user}: in an upload to the staging list when the run stopped: not looked for (the core's job may import it)`);
}

/** Users an undo still has to look at: with an id, and not finished by an earlier rollback. */
function* candidates(p: PreparedRollback): Iterable<RunMade> {
  for (const m of p.made()) if (m.ref !== undefined && !p.doneBefore.done.has(m.user)) yield m;
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

/** Up to `n` of the candidates, spread over the journal, and how many there are. */
function spread(p: PreparedRollback, n: number): { picked: RunMade[]; total: number } {
  let total = 0;
  for (const m of candidates(p)) if (m) total++;
  const at = new Set(Array.from({ length: Math.min(n, total) }, (_, i) => Math.floor((i * (total - 1)) / Math.max(1, n - 1))));
  const picked: RunMade[] = [];
  let i = 0;
  for (const m of candidates(p)) if (at.has(i++)) picked.push(m);
  return { picked, total };
}

/**
 * Undo the run: refuse a core that holds none of its users, retire the journal, then per user decide again on what
 * the core holds right now, act, read every action back, and log the user once all is read back.
 */
export async function performRollback(core: CoreClient, p: PreparedRollback, options: RollbackOptions = {}): Promise<RollbackSummary> {
  const s: RollbackSummary = { ...emptyDecisions(p.count), failures: [], log: '', journal: p.journal };
  unsettledCheck(p, s, options);
  const { picked, total: todo } = spread(p, 5);
  if (todo > 0) {
    const sampled = await Promise.all(picked.map((m) => readUserState(core, m)));
    // None of the samples: look at them all before refusing (the same rule as decideRollback).
    if (!sampled.some((s) => s.user) && !(await anyFound(core, candidates(p), options.concurrency ?? 8))) throw refusal(p, todo);
  }
  if (!isRetired(p.journal)) {
    p.journal = await retireJournal(p.live);
    options.onEvent?.({ type: 'rollback-retired', journal: p.journal, at: Date.now() });
  }
  const logPath = logPathOf(p.journal);
  const log = await openRollbackLog(logPath, await readRollbackLog(logPath));
  Object.assign(s, { log: logPath, journal: p.journal });
  const tick = progressEmitter(options.onEvent, 'undoing', p.count, s);
  const fail = (user: string, why: string): void => {
    s.failed++;
    if (s.failures.length < LISTED) s.failures.push(`user ${user}: ${why}`);
    options.onEvent?.({ type: 'rollback-user', phase: 'undoing', user, outcome: 'failed', detail: why, at: Date.now() });
  };
  let done = 0;
  const emit = options.onEvent;
  // Many removals are read back from the listing (a page per 500 users) when that is fewer requests than one each.
  const inTenant = todo >= 50 ? await usersInTenant(core).catch(() => undefined) : undefined;
  const inBulk = inTenant !== undefined && Math.ceil(inTenant / 500) + 1 < todo / 2;
  const removed: Array<{ user: string; kind: 'method' | 'user'; ids: string[] }> = [];
  try {
    await forEachPooled(toAsync(p.made()), options.concurrency ?? 8, async (m) => {
      let state: UserState;
      try {
        state = await readUserState(core, m);
      } catch (err) {
        if ((err as { fatal?: boolean }).fatal) throw err;
        fail(m.user, `reading it from the core: ${(err as Error).message}`);
        tick(++done);
        return;
      }
      const decision = decideUser(m, state, options);
      count(s, decision, p.doneBefore.done.has(m.user));
      if (decision.kind === 'kept')
        emit?.({
          type: 'rollback-user',
          phase: 'undoing',
          user: m.user,
          outcome: 'kept',
          detail: decision.reasons.join('; '),
          at: Date.now(),
        });
      if (decision.kind === 'remove' || decision.kind === 'undo') {
        const later = inBulk ? (kind: 'method' | 'user', ids: string[]) => removed.push({ user: m.user, kind, ids }) : undefined;
        const failure = await carryOut(core, decision, options.force ?? false, later);
        if (failure) fail(m.user, failure);
        else {
          await log.append({ user: m.user, done: decision.kind === 'remove' ? 'removed' : 'undone' });
          if (decision.kind === 'remove') s.removed++;
          else s.undone++;
          emit?.({
            type: 'rollback-user',
            phase: 'undoing',
            user: m.user,
            outcome: decision.kind === 'remove' ? 'removed' : 'undone',
            at: Date.now(),
          });
        }
      }
      tick(++done);
    });
    if (removed.length > 0) {
      const listed = await listedIds(core);
      const still = new Map<string, string>();
      for (const r of removed) {
        const id = r.ids.find((i) => listed[r.kind].has(i));
        if (id !== undefined && !still.has(r.user)) still.set(r.user, id);
      }
      for (const [user, id] of still) {
        s.removed--;
        fail(user, `removed, but the core still lists ${id} (read back from GET /users)`);
      }
    }
  } finally {
    await log.close();
  }
  return s;
}

/** The user's actions in order, each read back; the first that fails stops the user's (rerun goes on). */
async function carryOut(
  core: CoreClient,
  decision: Extract<UserDecision, { actions: unknown }>,
  force: boolean,
  readBackLater?: (kind: 'method' | 'user', ids: string[]) => void,
): Promise<string | undefined> {
  for (const a of decision.actions) {
    try {
      await performAction(core, a, force, readBackLater);
    } catch (err) {
      if (!(err instanceof ActionFailed) && (err as { fatal?: boolean }).fatal) throw err;
      return `${describeAction(a)}: ${(err as Error).message}`;
    }
  }
  return undefined;
}

async function anyFound(core: CoreClient, made: Iterable<RunMade>, concurrency: number): Promise<boolean> {
  let found = false;
  await forEachPooled(toAsync(made), concurrency, async (m) => {
    if (!found && (await readUserState(core, m)).user) found = true;
  });
  return found;
}

async function* toAsync<T>(items: Iterable<T>): AsyncIterable<T> {
  yield* items;
}
