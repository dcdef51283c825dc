// `run --sync` as one operation for both shells (the issue-23 rule): the preview of what a sync will do (the delta
// per kind with the first users of each, and the changes planned, no request), and the sync itself through the
// write session (session.ts: preflight, the question, the run folder), then only the changes, each read back. The CLI
// (commands/run-sync.ts) and the wizard (ui/services/sync.ts) only render its events; the work is src/engine/sync/.
// Invariant: nothing changed since the earlier run: no request is sent and no run folder made.
import { collectGarbage } from '../heap.js';
import { emptyTotals, type UserResult } from '../engine/events.js';
import { userIdOf } from '../engine/sync/chain.js';
import { AUTHORITY, changeLines, deltaLines, predictSync } from '../engine/sync/dry-run.js';
import { checkBaseAgainstCore, prepareSync, type PreparedSync, type SyncSetup } from '../engine/sync/operation.js';
import { syncStrategy } from '../engine/sync/strategy.js';
import { needsConfirmation } from './confirm.js';
import { Refusal, type CommonEvent, type RunOperationEvent } from './events.js';
import { runExitCode, type RunOutcome } from './run.js';
import { rerunCommand } from './rerun.js';
import { writePathOf } from './run-parts.js';
import { startSession, type SessionHandle, type SessionShell, type WriteSession } from './session.js';
import type { RunRequest, SyncOptions, SyncRequest as SyncRequest } from './requests.js';
import { describeTarget } from './target.js';
import { stoppedBeforeWrites } from './write-gate.js';

export { AUTHORITY };

export type { SyncOptions };

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

/** What preparing the sync reads (the engine's SyncSetup), from the sync's request. */
export const syncSetupOf = (s: Pick<RunRequest, 'files' | 'read' | 'plan' | 'output'>, target: string, o: SyncOptions): SyncSetup => ({
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
export async function previewSync(req: SyncSetup, show = 5): Promise<SyncPreview> {
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

export type SyncHandle = SessionHandle<SyncOutcome>;

/** The sync: the shell gives it settings, a way to connect, a confirm() and a listener, as for a run. */
export function startSync(request: SyncRequest, shell: SessionShell<SyncOperationEvent> & { preview?: SyncPreview }): SyncHandle {
  const { sync: o, ...settings } = request;
  return startSession(
    'sync',
    shell,
    async (session) => {
      const preview = shell.preview ?? (await previewSync(syncSetupOf(settings, describeTarget(settings.target), o)));
      const { prepared: p, ...shown } = preview;
      session.emit({ type: 'validated', summary: p.report.summary, unreadable: p.unreadable });
      session.emit({ type: 'sync-delta', preview: shown });
      const sync = syncOf(settings, session, p, shown);
      if (!p.hasWork) return sync.nothingChanged();
      if (session.control.stopped) return sync.refuse(stoppedBeforeWrites());
      const conn = await session.connect({ concurrency: settings.concurrency });
      const checked = await session.preflight(p.needs, settings);
      if (checked.refusal) return sync.refuse(checked.refusal);
      const wrong = await checkBaseAgainstCore(conn.client, p, (id) => userIdOf(p.work.histories.get(id) ?? new Map()));
      if (wrong) return sync.refuse(new Refusal('preflight', wrong.message, 'point at the core the earlier run migrated into'));
      // The delta and the authority line were shown just before (sync-delta): the question names what they come to.
      const declined = await session.ask(settings.target, needsConfirmation(settings.target), () => [syncEffect(p.delta, o.removeMissing)]);
      if (declined) return sync.refuse(declined);
      const folder = p.journal.replace(/\/journal\.ndjson$/, '');
      const options = { ...(p.fingerprintKey ? { fingerprintKey: p.fingerprintKey } : {}), sync: { ...p.header } };
      await session.openRunFolder({ journal: p.journal, out: settings.output.out }, p.identity, options);
      const { app = 'public', tenant = 'public' } = settings.target;
      const where = { url: conn.url, app, tenant, folder, journal: p.journal };
      session.emit({ type: 'run-folder', ...where, carriedOn: p.resume !== undefined, fromJournal: 0 });
      return sync.migrate(checked.plan, folder);
    },
    settings.target,
  );
}

/** What is a sync's own: its refusal, its records (only the changes, counted per kind) and its outcome. */
function syncOf(settings: RunRequest, session: WriteSession<SyncOperationEvent>, p: PreparedSync, shown: Omit<SyncPreview, 'prepared'>) {
  const store = settings.target.kind === 'sandbox' ? settings.target.store : undefined;
  const rerun = rerunCommand('run', settings.rerun.args, { journal: p.journal, store, exports: settings.rerun.exports });
  const base = { totals: emptyTotals(p.total), unreadable: p.unreadable, durationMs: 0, rerun, applied: {}, preview: shown };
  return {
    nothingChanged: (): SyncOutcome => ({ ...base, nothingChanged: true, exitCode: p.delta.invalid > 0 ? 1 : 0 }),
    refuse(refusal: Refusal): SyncOutcome {
      session.emit({ type: 'refused', code: refusal.code, message: refusal.message, fix: refusal.fix });
      return { ...base, stopped: 'refused', refusal, exitCode: 2 };
    },
    async migrate(plan: RunRequest['plan'], folder: string): Promise<SyncOutcome> {
      const countNew = (result: UserResult) => {
        const id = result.id;
        if (result.outcome === 'imported' && !p.work.changed.has(id) && !p.work.removals.has(id))
          p.work.applied.set('new', (p.work.applied.get('new') ?? 0) + 1);
      };
      const strategy = syncStrategy(p.work, writePathOf(settings, p.inputs));
      const engine = { inputs: p.inputs(), total: p.total, plan, strategy, fingerprintOf: p.fingerprintOf, onUser: countNew };
      const end = await session.migrate(engine, settings, rerun);
      const outcome: SyncOutcome = { ...base, ...end, folder, applied: Object.fromEntries(p.work.applied), exitCode: 0 };
      outcome.exitCode = runExitCode(outcome);
      return outcome;
    },
  };
}
