// What a rollback works on and what it counts (rollback.ts prepares and decides, perform.ts undoes): the
// prepared journal, the options, the decisions and summary with their counts, and the rules both passes share
// (which users to look at, the refusals before anything is done).
// Invariant: the decide pass and the perform pass take their rules from here, so they look at the same users and refuse
// alike.
import type { CoreClient } from '../../core-client/types.js';
import { UserError } from '../../errors.js';
import type { RunIdentity } from '../journal/journal.js';
import type { UserDecision } from './decide.js';
import { emptyCounts, type RollbackCounts, type RollbackEventListener } from './events.js';
import type { LoadedLog } from './log.js';
import type { RunMade } from './made.js';

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
  /** `--via bulk-staged` users in an upload when the run stopped, not settled since (made.ts). */
  unsettled: string[];
  /** Settle, from the core, the intents the run left unresolved (settle.ts); once, before any decision. */
  settle?(core: CoreClient): Promise<void>;
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

export function emptyDecisions(users: number): RollbackDecisions {
  return { users, doneBefore: 0, actions: 0, keptUsers: [], notUndone: [], ...emptyCounts() };
}

export function count(d: RollbackDecisions, decision: UserDecision, doneBefore: boolean): void {
  for (const n of decision.notes) if (d.notUndone.length < LISTED) d.notUndone.push(`user ${decision.user}: ${n}`);
  if (decision.kind === 'kept') {
    if (d.keptUsers.length < LISTED) d.keptUsers.push({ user: decision.user, reasons: decision.reasons });
    d.kept++;
  } else if (decision.kind === 'gone' || decision.kind === 'nothing') {
    if (decision.kind === 'gone') d.gone++;
    if (doneBefore) d.doneBefore++;
  } else if (decision.kind === 'remove' || decision.kind === 'undo') d.actions += decision.actions.length;
}

export const refusal = (p: PreparedRollback, looked: number): UserError =>
  new UserError(
    `the core holds none of the ${looked} users the journal ${p.journal} says its run made or changed: it was reset, or ` +
      'this is another core at the same address. Nothing was removed. Point at the core this journal belongs to.',
  );

/**
 * Users a `--via bulk-staged` run had in an upload when it stopped cannot be found from the journal alone (it
 * names no login of theirs): refused before anything is done, unless --force, which goes on and lists them.
 */
export function unsettledCheck(p: PreparedRollback, d: RollbackDecisions, options: RollbackOptions): void {
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
export function* candidates(p: PreparedRollback): Iterable<RunMade> {
  for (const m of p.made()) if (m.ref !== undefined && !p.doneBefore.done.has(m.user)) yield m;
}

export async function* toAsync<T>(items: Iterable<T>): AsyncIterable<T> {
  yield* items;
}
