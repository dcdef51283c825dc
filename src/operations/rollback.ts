// What an undo does, for `auth-migrate rollback` and the wizard's `u` alike: lock and read the run's journal, reach
// its target (the one given, else the journal's own), decide per user before anything is done (engine/rollback/:
// remove, undo the run's additions, keep what changed since), ask before a real core is emptied (the write session,
// session.ts, with the run's and sync's question and --yes rule), then carry it out with every removal read back.
// The shells draw the events; neither decides.
// Invariant: nothing is removed from a real core before the question was answered (or --yes), and every removal is
// read back.
import { UserError } from '../errors.js';
import { liveSyncsOn, readJournalHead } from '../engine/sync/base.js';
import type { UserDecision } from '../engine/rollback/decide.js';
import type { RollbackEvent } from '../engine/rollback/events.js';
import { locateJournal } from '../engine/rollback/retire.js';
import {
  decideRollback,
  performRollback,
  prepareRollback,
  type PreparedRollback,
  type RollbackDecisions,
  type RollbackSummary,
} from '../engine/rollback/operation.js';
import { needsConfirmation } from './confirm.js';
import type { CommonEvent, Refusal } from './events.js';
import type { RollbackRequest } from './requests.js';
import { refuseUnattended, startSession, type SessionShell, type WriteSession } from './session.js';
import { describeTarget, type ConnectOptions, type Connection, type Target } from './target.js';

export type { RollbackRequest };

export type RollbackOperationEvent =
  | CommonEvent
  | RollbackEvent
  /** The target read from the journal, when none was given. */
  | { type: 'rollback-target'; target: string; fromJournal: boolean }
  | { type: 'rollback-decided'; decisions: RollbackDecisions };

/** The session's shell, but for connect: it is told the target (the run's own when the settings name none). */
export interface RollbackShell extends Omit<SessionShell<RollbackOperationEvent>, 'connect'> {
  connect(target: Target, options: ConnectOptions): Promise<Connection>;
  /** Each user's decision as it is made, read-only (what a dry run lists). */
  onDecision?(decision: UserDecision): void;
}

export interface RollbackOutcome {
  decisions: RollbackDecisions;
  /** What was done (undefined for a dry run or a refusal). */
  summary?: RollbackSummary;
  refusal?: Refusal;
  exitCode: number;
}

/** The target a journal's identity names (`describeTarget`'s text), for a rollback given none. */
export function targetOfJournal(target: string): Target {
  const m = /^(.*) tenant=(\S+) app=(\S+)$/.exec(target);
  if (!m) throw new UserError(`the journal names its target as "${target}", which is not a target: give it (--core URL or --sandbox)`);
  const [, where, tenant, app] = m as unknown as [string, string, string, string];
  const scope = { ...(tenant !== 'public' ? { tenant } : {}), ...(app !== 'public' ? { app } : {}) };
  return where.startsWith('sandbox:')
    ? { kind: 'sandbox', store: where.slice('sandbox:'.length), ...scope }
    : { kind: 'remote', url: where, ...scope };
}

/** What an undo would remove and keep, in the confirmation's words (asked before anything is removed). */
export function rollbackEffects(d: RollbackDecisions): string[] {
  return [
    `would remove ${d.removed} users the run created (each login, device and mapping it gave them, read back gone)`,
    ...(d.undone > 0 ? [`would take the run's additions off ${d.undone} users that were there before (they stay)`] : []),
    `would keep ${d.kept} users changed since the run (a login, device or email added)${d.gone > 0 ? `; ${d.gone} are gone already` : ''}`,
  ];
}

/** The target a journal names (its run's), when it can be read; the operation reads it again under the lock. */
async function journalTarget(path: string): Promise<Target | undefined> {
  const where = locateJournal(path);
  const head = where ? await readJournalHead(where.journal) : undefined;
  if (!head) return undefined;
  try {
    const t = targetOfJournal(head.identity.target);
    return t.kind === 'remote' ? { kind: 'remote', url: t.url } : { kind: 'sandbox', store: t.store };
  } catch {
    return undefined;
  }
}

export async function rollbackMigration(settings: RollbackRequest, shell: RollbackShell): Promise<RollbackOutcome> {
  if (!settings.dryRun) {
    // Nothing to ask on and no --yes: a real core (given, or the journal's) is refused before it is contacted.
    const target = settings.target ?? (await journalTarget(settings.journal));
    if (target) refuseUnattended('rollback', target, shell);
  }
  // One history per migration: a run is undone only once the syncs made on it are (newest first).
  const later = await liveSyncsOn(settings.journal);
  if (later.length > 0) {
    throw new UserError(
      `the run ${settings.journal} has a sync made on it that is not rolled back: ${later.join(', ')}. ` +
        `Roll back the sync first (auth-migrate rollback --journal ${later[0]}), then this run; nothing was changed.`,
    );
  }
  // The run holds the journal's lock while it goes: a journal still being written is refused.
  const prepared = await prepareRollback(settings.journal, settings.target ? describeTarget(settings.target) : undefined, settings.by);
  let target: Target | undefined = settings.target;
  const session = { ...shell, connect: (c: ConnectOptions) => shell.connect(target!, c) };
  return startSession('rollback', session, async (s) => {
    s.hold(prepared.release);
    target ??= targetOfJournal(prepared.identity.target);
    s.emit({ type: 'rollback-target', target: prepared.identity.target, fromJournal: settings.target === undefined });
    return undo(s, prepared, target, settings, shell);
  }).done;
}

/** What is an undo's own: the decisions, then (asked about) the removals, each read back. */
async function undo(
  s: WriteSession<RollbackOperationEvent>,
  prepared: PreparedRollback,
  target: Target,
  settings: RollbackRequest,
  shell: RollbackShell,
): Promise<RollbackOutcome> {
  const dryRun = settings.dryRun;
  const conn = await s.connect({ concurrency: settings.concurrency, retries: false });
  const options = { force: settings.force, concurrency: settings.concurrency, onEvent: s.emit };
  const deciding = { ...options, ...(shell.onDecision ? { onDecision: (d: UserDecision) => shell.onDecision!(d) } : {}) };
  const ask = target.kind === 'remote' ? needsConfirmation(target) : settings.confirmSandbox === true;
  // The decisions before anything is done: what a dry run lists and a confirmation counts.
  const decisions = dryRun || ask ? await decideRollback(conn.client, prepared, deciding) : undefined;
  if (decisions) s.emit({ type: 'rollback-decided', decisions });
  if (dryRun) return { decisions: decisions!, exitCode: 0 };
  const where = { url: conn.url, tenant: target.tenant, app: target.app };
  const declined = ask ? await s.ask(where, true, () => rollbackEffects(decisions!)) : undefined;
  if (declined) {
    s.emit({ type: 'refused', code: declined.code, message: declined.message });
    return { decisions: decisions!, refusal: declined, exitCode: 2 };
  }
  const summary = await performRollback(conn.client, prepared, options);
  return { decisions: summary, summary, exitCode: summary.failed > 0 ? 1 : 0 };
}
