// What a run does, for `auth-migrate run` and the wizard alike: validate the sources, refuse a run that would drop
// a whole class of users, connect and preflight the target, ask before a real core is written, choose the run
// folder, then migrate (steps, bulk or staged) with the journal, report and failures files, and say how it ended.
// The shells give it their settings, a way to connect, a confirm() and a listener; they decide nothing of this.
import { dirname } from 'node:path';
import { collectGarbage } from '../heap.js';
import { emptyTotals, type Totals, type UserResult } from '../migration/events.js';
import { openJournal, type Journal, type RunIdentity } from '../migration/journal.js';
import { prepareRun, type PreparedRun } from '../migration/prepare.js';
import { openRunFiles, pathsBesideJournal, pathsMade, type RunPaths } from '../migration/report.js';
import { chooseRunJournal, ensureRunFolder } from '../migration/run-folder.js';
import { startMigration, type MigrationInput } from '../migration/runner.js';
import { sliceRecords, sliceTotal } from '../migration/slice.js';
import { streamValidatedRecords } from '../records/validate.js';
import type { Confirmation } from './confirm.js';
import { Refusal, type RunOperationEvent } from './events.js';
import { gitWorkTreeOf, ignoreInGit } from './folder-guard.js';
import { classLosses, partialRefusal } from './partial.js';
import { finishedUsers, runEffects, signInCountsOf, writeRerunFile, type SignInCounts } from './run-parts.js';
import { rerunCommand, type Rerun } from './rerun.js';
import type { RunSettings } from './settings.js';
import { skippedCollector, type SkippedSummary } from './skipped.js';
import { askBeforeWriting, EarlyControl, preflightPlan, stoppedBeforeWrites } from './write-gate.js';
import { describeTarget, type ConnectOptions, type Connection } from './target.js';

export interface RunShell {
  /** Open the target (the CLI spawns the sandbox of --sandbox; the wizard hands over the one it started). */
  connect(options: ConnectOptions): Promise<Connection>;
  /** Asked before a real core is written (never for the sandbox): true goes on, false writes nothing. */
  confirm(c: Confirmation): Promise<boolean>;
  onEvent(e: RunOperationEvent): void;
  /** Resolves once the shell's output has caught up (a slow reader of --json-events holds the run back). */
  drained?(): Promise<void>;
  /** The validation of exactly these sources and options, when the shell already has it (the wizard's preview). */
  prepared?: PreparedRun;
}

export interface RunOutcome {
  totals: Totals;
  /** Source items that could not be read as users (not migrated). */
  unreadable: number;
  durationMs: number;
  /** `refused`: stopped before any write (the refusal says why); nothing was written, no run folder was made. */
  stopped?: 'requested' | 'fatal' | 'refused';
  refusal?: Refusal;
  /** Why the run stopped early (401, 402, unreachable core...): the journal shows what was done. */
  error?: string;
  folder?: string;
  /** The files written; `signIn` only when some user went to the sign-in migration file. */
  paths?: RunPaths;
  /** Where the rerun command was saved (a stopped or failed run). */
  resumeFile?: string;
  rerun: Rerun;
  sandboxStore?: string;
  /** After a migrate-at-sign-in run: what `auth-migrate signin-status` counts. */
  signInStatus?: SignInCounts;
  /** The users left out (skipped): the first few named with why, all counted per reason (the report names each). */
  skipped?: SkippedSummary;
  exitCode: number;
}

export interface RunHandle {
  done: Promise<RunOutcome>;
  pause(): void;
  resume(): void;
  /** Stop taking new users; in-flight users finish; the journal is flushed. Before the writes: nothing is written. */
  stop(): void;
}

/** The exit code of a run, for both shells: 0 all ok, 1 some failed or skipped, 2 refused or fatal, 130 stopped. */
export function runExitCode(o: Pick<RunOutcome, 'stopped' | 'totals' | 'unreadable'>): number {
  if (o.stopped === 'refused' || o.stopped === 'fatal') return 2;
  if (o.stopped === 'requested') return 130;
  return o.totals.failed + o.totals.skipped + o.unreadable > 0 ? 1 : 0;
}

export function startRun(settings: RunSettings, shell: RunShell): RunHandle {
  const control = new EarlyControl();
  const emit = (e: RunOperationEvent) => shell.onEvent(e);
  const identity: RunIdentity = { sources: settings.files, target: describeTarget(settings.target) };

  const done = (async (): Promise<RunOutcome> => {
    const prepared = shell.prepared ?? (await prepareRun(settings.files, settings.read, settings.plan));
    if (!shell.prepared) collectGarbage(); // the first pass's duplicate tables are dead (heap.ts)
    const { report, needs, unreadable } = prepared;
    const total = sliceTotal(report.summary.records, settings.slice);
    const base = { totals: emptyTotals(total), unreadable, durationMs: 0 };
    emit({ type: 'validated', summary: report.summary, unreadable });
    const choice = await chooseRunJournal({ ...settings.output, cwd: settings.output.out, identity });
    const store = settings.target.kind === 'sandbox' ? settings.target.store : undefined;
    const rerun = rerunCommand('run', settings.rerun.args, { journal: choice.journal, store, exports: settings.rerun.exports });
    const refuse = (refusal: Refusal): RunOutcome => {
      emit({ type: 'refused', code: refusal.code, message: refusal.message, fix: refusal.fix });
      // Nothing was made: the same command (no journal path of a folder that does not exist) is the rerun.
      const again = rerunCommand('run', settings.rerun.args, { store, exports: settings.rerun.exports });
      return { ...base, stopped: 'refused', refusal, rerun: again, exitCode: 2 };
    };

    const losses = classLosses(report, settings.read);
    if (losses.length > 0) emit({ type: 'partial', losses, allowed: settings.allowPartial });
    const partial = partialRefusal(losses, settings.allowPartial);
    if (partial) return refuse(partial);
    if (control.stopped) return refuse(stoppedBeforeWrites());

    const conn = await shell.connect({
      concurrency: settings.concurrency,
      onRetry: (info) => emit({ type: 'retry', ...info, at: Date.now() }),
    });
    let journal: Journal | undefined;
    let ended: 'finished' | 'stopped' | 'fatal' | undefined;
    try {
      if (conn.sandbox) emit({ type: 'sandbox', url: conn.sandbox.url, store: conn.sandbox.storePath });
      const checked = await preflightPlan(conn, needs, settings, emit);
      if (checked.refusal) return refuse(checked.refusal);
      const { plan } = checked;
      // An earlier run's journal is opened (and locked) before asking, so the question can say what is left.
      if (choice.found) journal = await openJournal(choice.journal, identity);
      const fromJournal = journal ? finishedUsers(journal.users) : 0;
      const effects = () => runEffects(settings, report.summary.valid, fromJournal);
      const declined = await askBeforeWriting('run', settings, conn, effects, shell, emit, control);
      if (declined) return refuse(declined);
      // The work tree of where the files go: the run folder's parent, or the folder of an explicit --journal (which
      // may be outside the tree the command was started in, e.g. under /tmp).
      const gitTree = gitWorkTreeOf(choice.folder ? settings.output.out : dirname(choice.journal));
      if (!journal) {
        await ensureRunFolder(choice.journal);
        if (choice.folder && gitTree) await ignoreInGit(choice.folder);
        journal = await openJournal(choice.journal, identity);
      }
      collectGarbage(); // what reading the journal left (every line parsed), before the migration allocates
      const { app = 'public', tenant = 'public' } = settings.target;
      emit({
        type: 'run-folder',
        url: conn.url,
        app,
        tenant,
        folder: choice.folder,
        journal: choice.journal,
        carriedOn: choice.found,
        fromJournal,
        gitTree,
      });
      const skipped = skippedCollector();
      const summary = await migrate(conn, journal, plan, total, report, skipped.add);
      const stopped = summary.stopped;
      ended = stopped === 'fatal' ? 'fatal' : stopped ? 'stopped' : 'finished';
      const paths = pathsMade(pathsBesideJournal(choice.journal));
      const outcome: RunOutcome = {
        totals: summary.totals,
        unreadable,
        durationMs: summary.durationMs,
        ...(stopped ? { stopped } : {}),
        ...(summary.fatal ? { error: summary.fatal.message } : {}),
        ...(choice.folder ? { folder: choice.folder } : {}),
        paths,
        rerun,
        ...(conn.sandbox ? { sandboxStore: conn.sandbox.storePath } : {}),
        skipped: skipped.summary(),
        exitCode: 0,
      };
      if (stopped) outcome.resumeFile = await writeRerunFile(choice.journal, rerun);
      if (plan.unusableHashes === 'migrate-at-sign-in' && paths.signIn) {
        const counts = await signInCountsOf(conn.client, paths.signIn);
        if (counts) outcome.signInStatus = counts;
      }
      outcome.exitCode = runExitCode(outcome);
      return outcome;
    } finally {
      if (journal) {
        // A journal opened to ask the question, then not used, gets no end: no run happened.
        if (control.started) journal.append({ type: 'end', reason: ended ?? 'fatal', at: new Date().toISOString() });
        await journal.close();
      }
      await conn.close();
    }
  })();

  async function migrate(
    conn: Connection,
    journal: Journal,
    plan: RunSettings['plan'],
    total: number,
    report: PreparedRun['report'],
    onSkipped: (result: UserResult, record: MigrationInput['record']) => void,
  ) {
    const runFiles = openRunFiles(pathsBesideJournal(journal.path), plan);
    const records = () => sliceRecords(streamValidatedRecords(settings.files, settings.read, report), settings.slice);
    const migration = control.attach(
      startMigration({
        inputs: records(),
        // The staged path reads the records a second time, to report the users the core's job imported.
        reopenInputs: records,
        via: settings.via,
        batchSize: settings.batchSize,
        jobIntervalMs: settings.jobIntervalMs,
        total,
        core: conn.client,
        journal,
        plan,
        concurrency: settings.concurrency,
        onEvent: emit,
        onUserResult: async (result: UserResult, input: MigrationInput) => {
          onSkipped(result, input.record);
          await runFiles.write(result, input);
          await shell.drained?.();
        },
      }),
    );
    try {
      return await migration.done;
    } finally {
      await runFiles.close();
    }
  }

  return {
    done,
    pause: control.pause,
    resume: control.resume,
    stop: control.stop,
  };
}
