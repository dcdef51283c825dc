// `run --sync` as one operation for both shells (the issue-23 rule): the preview of what a sync will do (the delta
// per kind with the first users of each, and the changes planned, no request), and the sync itself: preflight,
// the question before a real core is written, the run folder, then only the changes, each read back. The CLI
// (commands/run-sync.ts) and the wizard (ui/services/sync.ts) only render its events; the work is src/migration/sync/.
import { collectGarbage } from '../heap.js';
import { emptyTotals, type UserResult } from '../migration/events.js';
import { openJournal, type Journal } from '../migration/journal.js';
import { openRunFiles, pathsBesideJournal, pathsMade } from '../migration/report.js';
import { ensureRunFolder } from '../migration/run-folder.js';
import { startMigration, type MigrationInput } from '../migration/runner.js';
import { userIdOf } from '../migration/sync/chain.js';
import { AUTHORITY, changeLines, deltaLines, predictSync } from '../migration/sync/dry-run.js';
import { checkBaseAgainstCore, prepareSync, type PreparedSync, type SyncRequest } from '../migration/sync/operation.js';
import { syncStrategy } from '../migration/sync/strategy.js';
import { Refusal, type CommonEvent, type RunOperationEvent } from './events.js';
import { runExitCode, type RunOutcome, type RunShell } from './run.js';
import { writeRerunFile } from './run-parts.js';
import { rerunCommand } from './rerun.js';
import type { RunSettings } from './settings.js';
import { skippedCollector } from './skipped.js';
import { describeTarget } from './target.js';
import { askBeforeWriting, EarlyControl, preflightPlan, stoppedBeforeWrites } from './write-gate.js';

export { AUTHORITY };

/** What a sync adds to a run's settings: which earlier run it brings up to date, and whether gone users go. */
export interface SyncOptions {
  /** The earlier run's journal (default: the newest run folder of this target under the output folder). */
  fromJournal?: string;
  removeMissing: boolean;
  /** Where a relative --from-journal is read from (default: the output folder). */
  cwd?: string;
}

/** What a sync will do, before any write (the dry run, the wizard's plan screen): no request is sent. */
export interface SyncPreview {
  /** The journal brought up to date, and how many runs the migration had so far (the first run, then syncs). */
  base: string;
  runs: number;
  /** A sync of these files that stopped: the sync carries on in its journal. */
  resume?: string;
  note?: string;
  delta: PreparedSync['delta'];
  /** The delta per kind, with the first users of each (ids only: never a hash, secret or code). */
  deltaLines: string[];
  /** Changes planned per kind on a core as the earlier run left it (what the sync counts as applied). */
  changes: Record<string, number>;
  changeLines: string[];
  /** The first changed users' steps (describeStep's words: no value of a secret). */
  sample: string[];
  /** Whether anything would be written. */
  hasWork: boolean;
  prepared: PreparedSync;
}

/** The sync's request from a run's settings. */
export const syncRequestOf = (s: Pick<RunSettings, 'files' | 'read' | 'plan' | 'output'>, target: string, o: SyncOptions): SyncRequest => ({
  files: s.files,
  readOptions: s.read,
  plan: s.plan,
  target,
  cwd: o.cwd ?? s.output.out,
  out: s.output.out,
  removeMissing: o.removeMissing,
  label: s.output.label,
  ...(o.fromJournal !== undefined ? { fromJournal: o.fromJournal } : {}),
  ...(s.output.journal !== undefined ? { journal: s.output.journal } : {}),
});

/** The delta and the changes planned; `show` changed users get their steps in `sample`. */
export async function previewSync(req: SyncRequest, show = 5): Promise<SyncPreview> {
  const p = await prepareSync(req);
  collectGarbage();
  const sample: string[] = [];
  const prediction = await predictSync(p, p.identity.sources, req.readOptions, req.plan, (l) => sample.push(l), show);
  return {
    base: p.base.path,
    runs: p.chain.length,
    ...(p.resume ? { resume: p.resume.path } : {}),
    ...(p.previous.note && p.work.changed.size + p.work.removals.size > 0 ? { note: p.previous.note } : {}),
    delta: p.delta,
    deltaLines: deltaLines(p.delta, req.removeMissing),
    changes: Object.fromEntries(prediction.changes),
    changeLines: changeLines(prediction.changes),
    sample,
    hasWork: p.hasWork,
    prepared: p,
  };
}

/** What a sync will write, in one line of the confirmation (the delta's lines above it say who). */
export function syncEffect(d: PreparedSync['delta'], removeMissing: boolean): string {
  const parts = [`${d.new} new`, `${d.changed} changed`, ...(removeMissing && d.gone ? [`up to ${d.gone} gone removed`] : [])];
  return `writes the changes listed above (${parts.join(', ')} users; the old system wins, as said above)`;
}

export type SyncOperationEvent =
  | CommonEvent
  | Extract<RunOperationEvent, { type: 'run-folder' }>
  | Exclude<RunOperationEvent, CommonEvent>
  /** Before anything else: what the sync will do (the preview's lines), so both shells show the delta first. */
  | { type: 'sync-delta'; preview: Omit<SyncPreview, 'prepared'> };

export interface SyncOutcome extends RunOutcome {
  /** Changes made, per kind, each read back from the core. */
  applied: Record<string, number>;
  preview?: Omit<SyncPreview, 'prepared'>;
  /** Nothing changed since the earlier run: no request was sent, no run folder made. */
  nothingChanged?: boolean;
}

export interface SyncHandle {
  done: Promise<SyncOutcome>;
  pause(): void;
  resume(): void;
  stop(): void;
}

/** The sync: the shell gives it settings, a way to connect, a confirm() and a listener, as for a run. */
export function startSync(
  settings: RunSettings,
  o: SyncOptions,
  shell: Omit<RunShell, 'onEvent' | 'prepared'> & { onEvent(e: SyncOperationEvent): void; preview?: SyncPreview },
): SyncHandle {
  const control = new EarlyControl();
  const emit = (e: SyncOperationEvent) => shell.onEvent(e);
  const done = (async (): Promise<SyncOutcome> => {
    const preview = shell.preview ?? (await previewSync(syncRequestOf(settings, describeTarget(settings.target), o)));
    const { prepared: p, ...shown } = preview;
    const unreadable = p.unreadable;
    emit({ type: 'validated', summary: p.report.summary, unreadable });
    emit({ type: 'sync-delta', preview: shown });
    const store = settings.target.kind === 'sandbox' ? settings.target.store : undefined;
    const rerun = rerunCommand('run', settings.rerun.args, { journal: p.journal, store, exports: settings.rerun.exports });
    const base = { totals: emptyTotals(p.total), unreadable, durationMs: 0, rerun, applied: {}, preview: shown };
    const refuse = (refusal: Refusal): SyncOutcome => {
      emit({ type: 'refused', code: refusal.code, message: refusal.message, fix: refusal.fix });
      return { ...base, stopped: 'refused', refusal, exitCode: 2 };
    };
    if (!p.hasWork) return { ...base, nothingChanged: true, exitCode: p.delta.invalid > 0 ? 1 : 0 };
    if (control.stopped) return refuse(stoppedBeforeWrites());
    const conn = await shell.connect({
      concurrency: settings.concurrency,
      onRetry: (info) => emit({ type: 'retry', ...info, at: Date.now() }),
    });
    let journal: Journal | undefined;
    let ended: 'finished' | 'stopped' | 'fatal' = 'fatal';
    try {
      if (conn.sandbox) emit({ type: 'sandbox', url: conn.sandbox.url, store: conn.sandbox.storePath });
      const checked = await preflightPlan(conn, p.needs, settings, emit);
      if (checked.refusal) return refuse(checked.refusal);
      const { plan } = checked;
      const wrong = await checkBaseAgainstCore(conn.client, p, (id) => userIdOf(p.work.histories.get(id) ?? new Map()));
      if (wrong) return refuse(new Refusal('preflight', wrong.message, 'point at the core the earlier run migrated into'));
      // The delta and the authority line were shown just before (sync-delta): the question names what they come to.
      const effects = () => [syncEffect(p.delta, o.removeMissing)];
      const declined = await askBeforeWriting('sync', settings, conn, effects, shell, emit, control);
      if (declined) return refuse(declined);
      await ensureRunFolder(p.journal);
      journal = await openJournal(p.journal, p.identity, {
        ...(p.fingerprintKey ? { fingerprintKey: p.fingerprintKey } : {}),
        sync: { ...p.header },
      });
      const { app = 'public', tenant = 'public' } = settings.target;
      const folder = p.journal.replace(/\/journal\.ndjson$/, '');
      emit({
        type: 'run-folder',
        url: conn.url,
        app,
        tenant,
        folder,
        journal: p.journal,
        carriedOn: p.resume !== undefined,
        fromJournal: 0,
      });
      const paths = pathsBesideJournal(p.journal);
      const runFiles = openRunFiles(paths, plan);
      const skipped = skippedCollector();
      const migration = control.attach(
        startMigration({
          inputs: p.inputs(),
          reopenInputs: p.inputs,
          total: p.total,
          core: conn.client,
          journal,
          plan,
          via: settings.via,
          batchSize: settings.batchSize,
          jobIntervalMs: settings.jobIntervalMs,
          concurrency: settings.concurrency,
          onEvent: emit,
          onUserResult: async (result: UserResult, input: MigrationInput) => {
            const id = result.id;
            if (result.outcome === 'imported' && !p.work.changed.has(id) && !p.work.removals.has(id))
              p.work.applied.set('new', (p.work.applied.get('new') ?? 0) + 1);
            skipped.add(result, input.record);
            await runFiles.write(result, input);
            await shell.drained?.();
          },
          wrapStrategy: syncStrategy(p.work),
          fingerprintOf: p.fingerprintOf,
        }),
      );
      let summary;
      try {
        summary = await migration.done;
      } finally {
        await runFiles.close();
      }
      ended = summary.stopped === 'fatal' ? 'fatal' : summary.stopped ? 'stopped' : 'finished';
      const outcome: SyncOutcome = {
        ...base,
        totals: summary.totals,
        durationMs: summary.durationMs,
        ...(summary.stopped ? { stopped: summary.stopped } : {}),
        ...(summary.fatal ? { error: summary.fatal.message } : {}),
        folder,
        paths: pathsMade(paths),
        ...(conn.sandbox ? { sandboxStore: conn.sandbox.storePath } : {}),
        applied: Object.fromEntries(p.work.applied),
        skipped: skipped.summary(),
        exitCode: 0,
      };
      if (summary.stopped) outcome.resumeFile = await writeRerunFile(p.journal, rerun);
      outcome.exitCode = runExitCode(outcome);
      return outcome;
    } finally {
      if (journal) {
        journal.append({ type: 'end', reason: ended, at: new Date().toISOString() });
        await journal.close();
      }
      await conn.close();
    }
  })();
  return {
    done,
    pause: control.pause,
    resume: control.resume,
    stop: control.stop,
  };
}
