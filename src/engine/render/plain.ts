// Plain-line renderer for stderr: a progress line at most once a second (on a terminal redrawn in place, within
// its width), failures as they happen, totals. The bulk-import job stalling is told once: a short line when it
// happens, and the whole reason with what to do in the command's last lines (the run's fatal error).
// Invariant: at most one progress line a second, and no secret in any line.
import type { RunEvent, Totals } from '../events.js';
import { doneCount } from '../events.js';
import { describeStagedProgress, describeStagedRemoved, describeStagedStalled, shortDuration } from './job-line.js';
import { fitLine, fitStagedProgress, widthOf } from './terminal-fit.js';

export interface PlainRendererOptions {
  write: (line: string) => void;
  now?: () => number;
  /** Minimum interval between progress lines (default 1000 ms). */
  intervalMs?: number;
  /** Failure lines printed before they are only counted (default 20). */
  maxFailureLines?: number;
  /** On a terminal: the progress line is redrawn in place (through this) instead of a new line each time. */
  progress?: (line: string) => void;
  /** On a terminal: its width now, which a redrawn line must fit (unknown: 80). */
  columns?: () => number | undefined;
}

/**
 * A stderr that is a terminal: progress redraws one line in place; any other line first clears it. On a pipe the
 * renderer writes plain lines instead (no control characters in logs).
 */
export function terminalLines(stream: NodeJS.WritableStream): {
  write: (line: string) => void;
  progress: (line: string) => void;
  columns: () => number | undefined;
} {
  let live = false;
  return {
    columns: () => (stream as NodeJS.WriteStream).columns,
    write(line) {
      stream.write(`${live ? '\r\x1b[2K' : ''}${line}\n`);
      live = false;
    },
    progress(line) {
      stream.write(`\r\x1b[2K${line}`);
      live = true;
    },
  };
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m${sec}s` : `${m}m${sec}s`;
}

export function formatTotals(t: Totals): string {
  const resumed = t.resumed > 0 ? ` (${t.resumed} from the journal)` : '';
  const replaced = (t.replaced ?? 0) > 0 ? ` (${t.replaced} with their password hash replaced)` : '';
  return `imported ${t.imported}, already present ${t.alreadyPresent}${resumed}${replaced}, failed ${t.failed}, skipped ${t.skipped}`;
}

/** `elapsedMs` is the time spent running (pauses left out); the rate counts only users this run did, not resumed ones. */
export function formatProgress(t: Totals, elapsedMs: number, retries: number, concurrency?: { limit: number; max: number }): string {
  const done = doneCount(t);
  const pct = t.total > 0 ? Math.floor((done / t.total) * 100) : 100;
  const rate = elapsedMs > 0 ? (done - t.resumed) / (elapsedMs / 1000) : 0;
  const eta = rate > 0 ? duration(((t.total - done) / rate) * 1000) : '?';
  const retried = retries > 0 ? `, ${retries} retries` : '';
  // The users at once, once the run has adapted it to the core (adaptive-concurrency.ts).
  const atOnce = concurrency ? `, ${concurrency.limit} of ${concurrency.max} at a time` : '';
  return `${done}/${t.total} users (${pct}%), ${rate.toFixed(1)}/s, ETA ${eta}, failed ${t.failed}${retried}${atOnce}`;
}

type Options = Required<Pick<PlainRendererOptions, 'write'>> & PlainRendererOptions;

/** What the renderer remembers between events. */
class PlainState {
  readonly now: () => number;
  readonly interval: number;
  readonly maxFailures: number;
  started: number;
  pausedAt: number | undefined;
  pausedMs = 0;
  lastProgress = -Infinity;
  lastStaged = -Infinity;
  stagedRunning: boolean | undefined;
  /** A `--via bulk-staged` run (its phases are told): per-user rates are left out. */
  staged = false;
  /** The job's stall, as the run's fatal error will tell it in full: the stop does not repeat it. */
  stalledText: string | undefined;
  retries = 0;
  failuresShown = 0;
  concurrency: { limit: number; max: number } | undefined;
  constructor(readonly o: Options) {
    this.now = o.now ?? Date.now;
    this.interval = o.intervalMs ?? 1000;
    this.maxFailures = o.maxFailureLines ?? 20;
    this.started = this.now();
  }
  /** A line redrawn in place: on a terminal, fitted to its width. */
  progress(line: string): void {
    if (this.o.progress) this.o.progress(fitLine(line, widthOf(this.o.columns?.())));
    else this.o.write(line);
  }
}

function onRetry(s: PlainState, event: Extract<RunEvent, { type: 'retry' }>): void {
  s.retries += 1;
  // A core that is down produces no user-done events: say what the run is waiting for, now and then.
  const t = s.now();
  if (t - s.lastProgress < s.interval * 5) return;
  s.lastProgress = t;
  s.o.write(
    `waiting for the core: ${event.method} ${event.path.split('?')[0]} failed with ${event.reason}; retry ${event.attempt} in ${Math.round(event.delayMs)} ms`,
  );
}

function onUserDone(s: PlainState, event: Extract<RunEvent, { type: 'user-done' }>): void {
  const r = event.result;
  if (r.outcome === 'failed') {
    s.failuresShown += 1;
    if (s.failuresShown <= s.maxFailures) s.o.write(`failed: ${r.id} at step ${r.step}: ${r.status}: ${r.message ?? ''}`);
    else if (s.failuresShown === s.maxFailures + 1) s.o.write('more failures: see the report file');
  }
  const t = s.now();
  if (t - s.lastProgress < s.interval) return;
  s.lastProgress = t;
  // A staged run settles its users in bulk at the end: a per-user rate would mean nothing (the job's line has it).
  s.progress(
    s.staged
      ? `${doneCount(event.totals).toLocaleString('en-US')}/${event.totals.total.toLocaleString('en-US')} users settled, failed ${event.totals.failed}`
      : formatProgress(event.totals, t - s.started - s.pausedMs, s.retries, s.concurrency),
  );
}

function onStagedProgress(s: PlainState, event: Extract<RunEvent, { type: 'staged-progress' }>): void {
  // On a terminal the job's line is redrawn in place, within its width; on a pipe it is written whole when the job
  // starts or stops, and otherwise every ten progress intervals.
  const t = s.now();
  if (s.o.progress) {
    if (t - s.lastStaged >= s.interval) {
      s.lastStaged = t;
      s.o.progress(fitStagedProgress(event, widthOf(s.o.columns?.())));
    }
  } else if (event.running !== s.stagedRunning || t - s.lastStaged >= s.interval * 10) {
    s.lastStaged = t;
    s.o.write(describeStagedProgress(event));
  }
  s.stagedRunning = event.running;
}

function onStalled(s: PlainState, event: Extract<RunEvent, { type: 'staged-stalled' }>): void {
  s.stalledText = describeStagedStalled(event);
  s.o.write(
    `warning: the core's bulk-import job has not moved for ${shortDuration(event.idleMs)} with ${event.waiting.toLocaleString('en-US')} ` +
      'users waiting: it is not running; stopping (why and what to do: below)',
  );
}

function onStopping(s: PlainState, event: Extract<RunEvent, { type: 'stopping' }>): void {
  if (event.reason !== 'fatal') {
    s.o.write('stopping: no new users are started; in-flight steps finish and the journal is flushed');
  } else if (s.stalledText !== undefined && event.message === s.stalledText) {
    s.o.write("stopping: the staged users the job has not started are taken back out of the core's list");
  } else {
    s.o.write(`stopping: ${event.message ?? 'fatal error'}`);
  }
}

/** Returns the listener; the runner's events go in, lines come out. */
export function createPlainRenderer(options: PlainRendererOptions): (event: RunEvent) => void {
  const s = new PlainState(options);
  const write = options.write;
  return (event) => {
    switch (event.type) {
      case 'run-started':
        s.started = event.at;
        return write(`migrating ${event.total} users, ${event.concurrency} at a time; journal ${event.journal}`);
      case 'concurrency':
        s.concurrency = { limit: event.limit, max: event.max };
        return;
      case 'retry':
        return onRetry(s, event);
      case 'user-done':
        return onUserDone(s, event);
      case 'staged-progress':
        return onStagedProgress(s, event);
      case 'staged-stalled':
        return onStalled(s, event);
      case 'core-knowledge':
        return write(event.detail);
      case 'staged-phase':
        s.staged = true;
        return write(event.detail);
      case 'staged-removed':
        return write(describeStagedRemoved(event));
      case 'paused':
        s.pausedAt = event.at;
        return write('paused');
      case 'resumed':
        if (s.pausedAt !== undefined) s.pausedMs += event.at - s.pausedAt;
        s.pausedAt = undefined;
        return write('resumed');
      case 'stopping':
        return onStopping(s, event);
      case 'finished':
        return write(`${event.stopped ? 'stopped' : 'finished'} in ${duration(event.durationMs)}: ${formatTotals(event.totals)}`);
    }
  };
}
