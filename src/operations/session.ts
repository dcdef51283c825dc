// The one write session of run, sync and rollback (Knex's `_runBatch`): the only code that connects to the target,
// preflights it, asks before a real core is written or emptied (and refuses a real core without --yes when nothing
// can ask), opens the journal and the run folder and files, attaches the engine, and finishes: the journal's end
// line, the rerun file of a run that stopped, and the closing of journal, connection and lock. Each operation says
// only what is its own (what it reads, what it asks about, what it writes).
// Invariant: whatever ends the body (its answer, an error, a stop asked by Ctrl-C), close() runs once, here:
// the journal gets its end line when the engine was started, then journal, connection and held locks are closed.
import { dirname } from 'node:path';
import type { PlanNeeds } from '../core-client/preflight.js';
import { UserError } from '../errors.js';
import type { Totals, UserResult } from '../engine/events.js';
import { openJournal, type Journal, type OpenJournalOptions, type RunIdentity } from '../engine/journal/journal.js';
import type { PlanOptions } from '../engine/plan/plan.js';
import { openRunFiles, pathsBesideJournal, pathsMade, type RunPaths } from '../engine/report.js';
import { ensureRunFolder } from '../engine/run-folder.js';
import { startMigration, type RunnerOptions, type RunSummary, type ValidatedRecord } from '../engine/runner.js';
import { confirmationFor, type Confirmation } from './confirm.js';
import { Refusal, type CommonEvent } from './events.js';
import { gitWorkTreeOf, ignoreInGit } from './folder-guard.js';
import type { Rerun } from './rerun.js';
import { writeRerunFile } from './run-parts.js';
import type { RunRequest } from './requests.js';
import { skippedCollector, type SkippedSummary } from './skipped.js';
import type { ConnectOptions, Connection, Target } from './target.js';
import { EarlyControl, preflightPlan, stoppedBeforeWrites } from './write-gate.js';

/** What a shell gives a write session: how to reach the target, how to ask, and where events go. */
export interface SessionShell<E> {
  /** Open the target (the CLI spawns the sandbox of --sandbox; the wizard hands over the one it started). */
  connect(options: ConnectOptions): Promise<Connection>;
  /** Asked before a real core is written or emptied (never for the sandbox unless asked to): false writes nothing. */
  confirm(c: Confirmation): Promise<boolean>;
  onEvent(e: E): void;
  /** Resolves once the shell's output has caught up (a slow reader of --json-events holds the run back). */
  drained?(): Promise<void>;
  /** `--yes`: a real core is written or emptied without asking. */
  yes?: boolean;
  /** Whether the shell can ask at all (a terminal, the wizard's screen; default yes). */
  canAsk?: boolean;
}

/** The one line of a refusal for want of --yes (no terminal to ask on). */
export function needsYesLine(action: Confirmation['action'], url: string): string {
  const what = action === 'rollback' ? 'remove from' : 'write into';
  return (
    `no terminal to ask on (standard input is not a terminal): pass --yes to ${what} the core ${url.replace(/\/+$/, '')}; ` +
    `nothing was ${action === 'rollback' ? 'removed' : 'written'}`
  );
}

/**
 * Before anything is read or sent: a real core, with nothing to ask on and no --yes, is refused (exit 2, one line).
 * A sandbox target, --yes or a shell that can ask pass.
 */
export function refuseUnattended(
  action: Confirmation['action'],
  target: Target,
  shell: Pick<SessionShell<unknown>, 'yes' | 'canAsk'>,
): void {
  if (shell.yes === true || target.kind !== 'remote' || shell.canAsk !== false) return;
  throw new UserError(needsYesLine(action, target.url), 2);
}

/** What the session's end of a migration gives the operation's outcome (the rest is the operation's own). */
export interface SessionEnd {
  totals: Totals;
  durationMs: number;
  stopped?: 'requested' | 'fatal';
  /** Why the run stopped early (401, 402, unreachable core...): the journal shows what was done. */
  error?: string;
  paths: RunPaths;
  sandboxStore?: string;
  skipped: SkippedSummary;
  /** Where the rerun command was saved (a stopped or failed run). */
  resumeFile?: string;
}

/** What the engine is given by an operation: its records, its write path's strategy (run-parts.ts writePathOf). */
export type MigrateInput = Pick<RunnerOptions, 'inputs' | 'total' | 'strategy' | 'fingerprintOf'> & {
  plan: PlanOptions;
  /** Called for each finished user before the run files are written (a sync counts what it applied). */
  onUser?(result: UserResult, input: ValidatedRecord): void;
};

export class WriteSession<E = CommonEvent> {
  /** Pause, resume and stop, asked before the engine starts and handed to it once it does. */
  readonly control = new EarlyControl();
  private conn: Connection | undefined;
  private journal: Journal | undefined;
  private ended: 'finished' | 'stopped' | 'fatal' | undefined;
  private readonly holds: Array<() => Promise<void>> = [];

  constructor(
    readonly action: Confirmation['action'],
    readonly shell: SessionShell<E>,
  ) {}

  readonly emit = (e: E | CommonEvent): void => this.shell.onEvent(e as E);

  /** The connection (after connect()). */
  get connection(): Connection {
    if (!this.conn) throw new Error('the session is not connected');
    return this.conn;
  }

  /** Something to release when the session ends, after the connection is closed (a journal's lock). */
  hold(release: () => Promise<void>): void {
    this.holds.push(release);
  }

  /** Open the target; a sandbox is said at once (its URL and store). */
  async connect(o: { concurrency: number; retries?: boolean }): Promise<Connection> {
    const options: ConnectOptions = { concurrency: o.concurrency };
    if (o.retries !== false) options.onRetry = (info) => this.emit({ type: 'retry', ...info, at: Date.now() } as E);
    this.conn = await this.shell.connect(options);
    if (this.conn.sandbox) this.emit({ type: 'sandbox', url: this.conn.sandbox.url, store: this.conn.sandbox.storePath });
    return this.conn;
  }

  /** The preflight (unless skipped): the plan it leaves, or why the target is refused. */
  preflight(needs: PlanNeeds, request: Pick<RunRequest, 'plan' | 'skipPreflight' | 'via'>) {
    return preflightPlan(this.connection, needs, request, this.emit);
  }

  /**
   * The question before the first write or removal: a real core's confirmation through the shell (or `--yes`),
   * then a last look at stop. `ask` false: no question (the sandbox). Undefined: go on; else the refusal.
   */
  async ask(
    where: Target | { url: string; tenant?: string; app?: string },
    ask: boolean,
    effects: () => string[],
  ): Promise<Refusal | undefined> {
    if (ask) {
      // A sandbox asked about (the wizard's undo) is named by the URL it listens on.
      const at = { url: 'url' in where ? where.url : this.connection.url, tenant: where.tenant, app: where.app };
      const confirmation = await confirmationFor(this.action, at, this.connection.client, effects());
      this.emit({ type: 'confirm', confirmation });
      if (!(await this.answer(confirmation)) || this.control.stopped) {
        const done = this.action === 'rollback' ? 'removed from' : 'written to';
        return new Refusal('not-confirmed', `not confirmed: nothing was ${done} ${confirmation.url}`);
      }
    }
    return this.control.stopped ? stoppedBeforeWrites() : undefined;
  }

  private async answer(c: Confirmation): Promise<boolean> {
    if (this.shell.yes === true) return true;
    return this.shell.confirm(c);
  }

  /** A journal opened before the question (an earlier run's, to say what is left); it gets an end line only if used. */
  async openJournal(path: string, identity: RunIdentity, options?: OpenJournalOptions): Promise<Journal> {
    this.journal = await openJournal(path, identity, options);
    return this.journal;
  }

  /**
   * The run folder (made, and ignored in the git work tree it is in) and its journal, after the question.
   * Returns the git work tree, if any, of where the files go.
   */
  async openRunFolder(
    at: { journal: string; folder?: string; out: string },
    identity: RunIdentity,
    options?: OpenJournalOptions,
  ): Promise<{ journal: Journal; gitTree?: string }> {
    // The work tree of where the files go: the run folder's parent, or the folder of an explicit --journal (which
    // may be outside the tree the command was started in, e.g. under /tmp).
    const gitTree = gitWorkTreeOf(at.folder ? at.out : dirname(at.journal));
    const journal = this.journal ?? (await this.openNew(at, gitTree, identity, options));
    return { journal, ...(gitTree ? { gitTree } : {}) };
  }

  private async openNew(
    at: { journal: string; folder?: string },
    gitTree: string | undefined,
    identity: RunIdentity,
    options?: OpenJournalOptions,
  ) {
    await ensureRunFolder(at.journal);
    if (at.folder && gitTree) await ignoreInGit(at.folder);
    return this.openJournal(at.journal, identity, options);
  }

  /**
   * The migration itself: the run files beside the journal, the engine attached to pause and stop, each user
   * written to the files once finished. Then the session's part of the outcome (the rerun file when it stopped).
   */
  async migrate(input: MigrateInput, request: Pick<RunRequest, 'concurrency'>, rerun: Rerun): Promise<SessionEnd> {
    const journal = this.journal;
    if (!journal) throw new Error('the session has no journal open');
    const paths = pathsBesideJournal(journal.path);
    const runFiles = openRunFiles(paths, input.plan);
    const skipped = skippedCollector();
    let summary: RunSummary;
    try {
      const { onUser, ...engine } = input;
      const migration = this.control.attach(
        startMigration({
          ...engine,
          core: this.connection.client,
          journal,
          concurrency: request.concurrency,
          onEvent: (e) => this.emit(e as E),
          onUserResult: async (result: UserResult, record: ValidatedRecord) => {
            onUser?.(result, record);
            skipped.add(result, record.record);
            await runFiles.write(result, record);
            await this.shell.drained?.();
          },
        }),
      );
      summary = await migration.done;
    } finally {
      await runFiles.close();
    }
    return this.ending(summary, paths, skipped.summary(), rerun);
  }

  private async ending(summary: RunSummary, paths: RunPaths, skipped: SkippedSummary, rerun: Rerun): Promise<SessionEnd> {
    const stopped = summary.stopped;
    this.ended = stopped === 'fatal' ? 'fatal' : stopped ? 'stopped' : 'finished';
    const sandbox = this.conn?.sandbox;
    return {
      totals: summary.totals,
      durationMs: summary.durationMs,
      ...(stopped ? { stopped } : {}),
      ...(summary.fatal ? { error: summary.fatal.message } : {}),
      paths: pathsMade(paths),
      ...(sandbox ? { sandboxStore: sandbox.storePath } : {}),
      skipped,
      ...(stopped ? { resumeFile: await writeRerunFile(this.journal!.path, rerun) } : {}),
    };
  }

  /** The end of every session, whatever ended it: the journal's end line (once the engine started), then closes. */
  async close(): Promise<void> {
    try {
      if (this.journal) {
        // A journal opened to ask the question, then not used, gets no end: no run happened.
        if (this.control.started) this.journal.append({ type: 'end', reason: this.ended ?? 'fatal', at: new Date().toISOString() });
        await this.journal.close();
      }
    } finally {
      try {
        await this.conn?.close();
      } finally {
        for (const release of this.holds.reverse()) await release();
      }
    }
  }
}

/** A handle on a session's work: its outcome, and pause, resume and stop (Ctrl-C) at any time. */
export interface SessionHandle<T> {
  done: Promise<T>;
  pause(): void;
  resume(): void;
  /** Stop taking new users; in-flight users finish; the journal is flushed. Before the writes: nothing is written. */
  stop(): void;
}

/** Run `body` in a write session: it is closed however the body ends (answer, error, stop). */
export function startSession<T, E>(
  action: Confirmation['action'],
  shell: SessionShell<E>,
  body: (session: WriteSession<E>) => Promise<T>,
  /** The target, when known before anything is read: refused at once when it cannot be asked about. */
  target?: Target,
): SessionHandle<T> {
  const session = new WriteSession<E>(action, shell);
  const done = (async () => {
    if (target) refuseUnattended(action, target, shell);
    try {
      return await body(session);
    } finally {
      await session.close();
    }
  })();
  const c = session.control;
  return { done, pause: c.pause, resume: c.resume, stop: c.stop };
}
