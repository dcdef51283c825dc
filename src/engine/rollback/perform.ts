// Carrying out a rollback (rollback.ts prepares and decides): refuse a core without the journal's users, retire the
// journal, then per user decide again on what the core holds right now, act, read every action back (one by one,
// or from the listing when there are many) and log the user once all is done.
// Invariant: each user is decided again on what the core holds right before acting, so nothing changed since the dry
// run is removed.
import type { CoreClient } from '../../core-client/types.js';
import { forEachPooled } from '../pace/pool.js';
import { usersInTenant } from '../../core-client/users-count.js';
import { ActionFailed, listedIds, performAction, readUserState } from './core.js';
import { decideUser, describeAction, type UserDecision, type UserState } from './decide.js';
import { progressEmitter } from './events.js';
import { openRollbackLog, readRollbackLog } from './log.js';
import type { RunMade } from './made.js';
import { isRetired, logPathOf, retireJournal } from './retire.js';
import {
  candidates,
  count,
  emptyDecisions,
  LISTED,
  refusal,
  toAsync,
  unsettledCheck,
  type PreparedRollback,
  type RollbackOptions,
  type RollbackSummary,
} from './tally.js';

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
  await p.settle?.(core);
  const s: RollbackSummary = { ...emptyDecisions(p.count), failures: [], log: '', journal: p.journal };
  unsettledCheck(p, s, options);
  const todo = await refuseForeignCore(core, p, options);
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
      const begunBefore = p.doneBefore.intended.has(m.user);
      count(s, decision, p.doneBefore.done.has(m.user) || begunBefore);
      // Begun by an earlier rollback that stopped before logging it: what is gone now, that rollback removed.
      if (begunBefore && decision.kind === 'gone') await log.append({ user: m.user, done: 'removed' });
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
        await log.intend(m.user, decision.kind);
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
    for (const [user, id] of await stillListed(core, removed)) {
      s.removed--;
      fail(user, `removed, but the core still lists ${id} (read back from GET /users)`);
    }
  } finally {
    await log.close();
  }
  return s;
}

/** The candidates' count; throws the refusal when the core holds none of them (a few spread samples, then all). */
async function refuseForeignCore(core: CoreClient, p: PreparedRollback, options: RollbackOptions): Promise<number> {
  const { picked, total: todo } = spread(p, 5);
  if (todo > 0) {
    const sampled = await Promise.all(picked.map((m) => readUserState(core, m)));
    // None of the samples: look at them all before refusing (the same rule as decideRollback).
    if (!sampled.some((s) => s.user) && !(await anyFound(core, candidates(p), options.concurrency ?? 8))) throw refusal(p, todo);
  }
  return todo;
}

/** Of the removals read back later, the users whose ids the core still lists (one listing for all), with one such id. */
async function stillListed(
  core: CoreClient,
  removed: Array<{ user: string; kind: 'method' | 'user'; ids: string[] }>,
): Promise<Map<string, string>> {
  const still = new Map<string, string>();
  if (removed.length === 0) return still;
  const listed = await listedIds(core);
  for (const r of removed) {
    const id = r.ids.find((i) => listed[r.kind].has(i));
    if (id !== undefined && !still.has(r.user)) still.set(r.user, id);
  }
  return still;
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
