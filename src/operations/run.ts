// What a run does, for `auth-migrate run` and the wizard alike: validate the sources, refuse a run that would drop
// a whole class of users, choose the run folder (carrying on an earlier run's journal), then, through the write
// session (session.ts: connect, preflight, the question, journal, engine, end), migrate and say how it ended.
// The shells give it a RunRequest, a way to connect, a confirm() and a listener; they decide nothing of this.
// Invariant: nothing is written, and no run folder made, before the question was answered (or the target is the
// sandbox).
import { collectAfter } from '../heap.js';
import { emptyTotals, type Totals } from '../engine/events.js';
import type { RunIdentity } from '../engine/journal/journal.js';
import { prepareRun, type PreparedRun } from '../engine/plan/prepare.js';
import type { RunPaths } from '../engine/report.js';
import { chooseRunJournal, type RunJournalChoice } from '../engine/run-folder.js';
import { sliceRecords, sliceTotal } from '../engine/plan/slice.js';
import { streamValidatedRecords } from '../records/validate.js';
import { needsConfirmation } from './confirm.js';
import type { Refusal, RunOperationEvent } from './events.js';
import { classLosses, partialRefusal } from './partial.js';
import { finishedUsers, runEffects, signInCountsOf, writePathOf, type SignInCounts } from './run-parts.js';
import { rerunCommand, type Rerun } from './rerun.js';
import { startSession, type SessionHandle, type SessionShell, type WriteSession } from './session.js';
import type { RunRequest } from './requests.js';
import type { SkippedSummary } from './skipped.js';
import { stoppedBeforeWrites } from './write-gate.js';
import { describeTarget } from './target.js';

/** The session's shell (connect, confirm, events, --yes), and what a run may be handed besides. */
export interface RunShell extends SessionShell<RunOperationEvent> {
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

export type RunHandle = SessionHandle<RunOutcome>;

/** The exit code of a run, for both shells: 0 all ok, 1 some failed or skipped, 2 refused or fatal, 130 stopped. */
export function runExitCode(o: Pick<RunOutcome, 'stopped' | 'totals' | 'unreadable'>): number {
  if (o.stopped === 'refused' || o.stopped === 'fatal') return 2;
  if (o.stopped === 'requested') return 130;
  return o.totals.failed + o.totals.skipped + o.unreadable > 0 ? 1 : 0;
}

export function startRun(settings: RunRequest, shell: RunShell): RunHandle {
  return startSession(
    'run',
    shell,
    async (session) => {
      const prepared = shell.prepared ?? (await prepareRun(settings.files, settings.read, settings.plan));
      if (!shell.prepared) collectAfter(prepared.report.summary.records); // the first pass's duplicate tables are dead (heap.ts)
      session.emit({ type: 'validated', summary: prepared.report.summary, unreadable: prepared.unreadable });
      const choice = await chooseRunJournal({ ...settings.output, cwd: settings.output.out, identity: identityOf(settings) });
      const run = runOf(settings, session, prepared, choice);
      const losses = classLosses(prepared.report, settings.read);
      if (losses.length > 0) session.emit({ type: 'partial', losses, allowed: settings.allowPartial });
      const partial = partialRefusal(losses, settings.allowPartial);
      if (partial) return run.refuse(partial);
      if (session.control.stopped) return run.refuse(stoppedBeforeWrites());
      await session.connect({ concurrency: settings.concurrency });
      const checked = await session.preflight(prepared.needs, settings);
      if (checked.refusal) return run.refuse(checked.refusal);
      // An earlier run's journal is opened (and locked) before asking, so the question can say what is left.
      const earlier = choice.found ? await session.openJournal(choice.journal, identityOf(settings)) : undefined;
      const fromJournal = earlier ? finishedUsers(earlier.users) : 0;
      const effects = () => runEffects(settings, prepared.report.summary.valid, fromJournal);
      const declined = await session.ask(settings.target, needsConfirmation(settings.target), effects);
      if (declined) return run.refuse(declined);
      const { gitTree } = await session.openRunFolder({ ...choice, out: settings.output.out }, identityOf(settings));
      collectAfter(prepared.report.summary.records + fromJournal); // what reading the journal left, before the migration allocates
      const { app = 'public', tenant = 'public' } = settings.target;
      const where = { url: session.connection.url, app, tenant, journal: choice.journal, carriedOn: choice.found };
      session.emit({ type: 'run-folder', ...where, folder: choice.folder, fromJournal, ...(gitTree ? { gitTree } : {}) });
      return run.migrate(checked.plan);
    },
    settings.target,
  );
}

const identityOf = (settings: RunRequest): RunIdentity => ({ sources: settings.files, target: describeTarget(settings.target) });

/** What is a run's own: its refusal, its records and its outcome; the session does the rest. */
function runOf(settings: RunRequest, session: WriteSession<RunOperationEvent>, prepared: PreparedRun, choice: RunJournalChoice) {
  const { report, unreadable } = prepared;
  const total = sliceTotal(report.summary.records, settings.slice);
  const store = settings.target.kind === 'sandbox' ? settings.target.store : undefined;
  const rerun = rerunCommand('run', settings.rerun.args, { journal: choice.journal, store, exports: settings.rerun.exports });
  const base = { totals: emptyTotals(total), unreadable, durationMs: 0 };
  return {
    refuse(refusal: Refusal): RunOutcome {
      session.emit({ type: 'refused', code: refusal.code, message: refusal.message, fix: refusal.fix });
      // Nothing was made: the same command (no journal path of a folder that does not exist) is the rerun.
      const again = rerunCommand('run', settings.rerun.args, { store, exports: settings.rerun.exports });
      return { ...base, stopped: 'refused', refusal, rerun: again, exitCode: 2 };
    },
    async migrate(plan: RunRequest['plan']): Promise<RunOutcome> {
      const records = () => sliceRecords(streamValidatedRecords(settings.files, settings.read, report), settings.slice);
      // The staged path reads the records a second time, to report the users the core's job imported.
      const end = await session.migrate({ inputs: records(), total, plan, strategy: writePathOf(settings, records) }, settings, rerun);
      const outcome: RunOutcome = { ...end, unreadable, ...(choice.folder ? { folder: choice.folder } : {}), rerun, exitCode: 0 };
      if (plan.unusableHashes === 'migrate-at-sign-in' && end.paths.signIn) {
        const counts = await signInCountsOf(session.connection.client, end.paths.signIn);
        if (counts) outcome.signInStatus = counts;
      }
      outcome.exitCode = runExitCode(outcome);
      return outcome;
    },
  };
}
