// The run screen's state, drawn from the run operation's events (the same events `run` prints as lines).
import type { RunOperationEvent } from '../../operations/events.js';
import { doneCount } from '../../engine/events.js';
import type { RunState } from './types.js';
import { describeStagedProgress, describeStagedRemoved, describeStagedStalled } from '../../engine/render/job-line.js';

const LATEST = 5;

export const idleRun: RunState = {
  status: 'idle',
  total: 0,
  done: 0,
  imported: 0,
  alreadyPresent: 0,
  failed: 0,
  skipped: 0,
  retries: 0,
  resumed: 0,
  pausedMs: 0,
  latestFailures: [],
  latestSkips: [],
  warnings: [],
};

const latest = (list: string[], line: string): string[] => [...list, line].slice(-LATEST);

export function onRunEvent(run: RunState, e: RunOperationEvent): RunState {
  switch (e.type) {
    case 'preflight':
      return { ...run, warnings: e.findings.filter((f) => f.level !== 'info').map((f) => `${f.level}: ${f.message}`) };
    case 'confirm':
      return { ...run, status: 'confirming', confirm: e.confirmation };
    case 'run-folder':
      return { ...run, status: run.status === 'stopping' ? 'stopping' : 'running', confirm: undefined, folder: e };
    case 'run-started':
      return { ...run, total: e.total };
    case 'user-done': {
      const t = e.totals;
      const r = e.result;
      const next: RunState = {
        ...run,
        done: doneCount(t),
        imported: t.imported,
        alreadyPresent: t.alreadyPresent,
        failed: t.failed,
        skipped: t.skipped,
        resumed: t.resumed,
      };
      if (r.outcome === 'failed')
        next.latestFailures = latest(run.latestFailures, `${r.id}: ${`${r.step ?? ''} ${r.status ?? ''} ${r.message ?? ''}`.trim()}`);
      if (r.outcome === 'skipped') next.latestSkips = latest(run.latestSkips, `${r.id}: ${r.message ?? r.status ?? 'left out'}`);
      return next;
    }
    case 'retry':
      return { ...run, retries: run.retries + 1 };
    case 'concurrency':
      return { ...run, atOnce: { limit: e.limit, max: e.max } };
    case 'staged-progress':
      return { ...run, staged: describeStagedProgress(e) };
    case 'staged-stalled':
      return { ...run, staged: describeStagedStalled(e) };
    case 'core-knowledge':
      return { ...run, knowledge: e.detail };
    case 'staged-phase':
      return { ...run, staged: e.detail };
    case 'staged-removed':
      return { ...run, staged: describeStagedRemoved(e) };
    case 'paused':
      return run.status === 'stopping' ? run : { ...run, status: 'paused', pausedAt: e.at };
    case 'resumed': {
      const pausedMs = run.pausedMs + (run.pausedAt !== undefined ? e.at - run.pausedAt : 0);
      return run.status === 'stopping'
        ? { ...run, pausedMs, pausedAt: undefined }
        : { ...run, status: 'running', pausedMs, pausedAt: undefined };
    }
    case 'stopping':
      return { ...run, status: 'stopping' };
    default:
      return run;
  }
}
