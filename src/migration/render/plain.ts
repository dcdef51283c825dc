// Plain-line renderer for stderr: a progress line at most once a second, failures as they happen, totals.
import type { RunEvent, Totals } from '../events.js';
import { doneCount } from '../events.js';
import { describeStagedProgress, describeStagedRemoved, describeStagedStalled } from './staged-line.js';

export interface PlainRendererOptions {
  write: (line: string) => void;
  now?: () => number;
  /** Minimum interval between progress lines (default 1000 ms). */
  intervalMs?: number;
  /** Failure lines printed before they are only counted (default 20). */
  maxFailureLines?: number;
  /** On a terminal: the progress line is redrawn in place (through this) instead of a new line each time. */
  progress?: (line: string) => void;
}

/**
 * A stderr that is a terminal: progress redraws one line in place; any other line first clears it. On a pipe the
 * renderer writes plain lines instead (no control characters in logs).
 */
export function terminalLines(stream: NodeJS.WritableStream): { write: (line: string) => void; progress: (line: string) => void } {
  let live = false;
  return {
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

/** Returns the listener; the runner's events go in, lines come out. */
export function createPlainRenderer(options: PlainRendererOptions): (event: RunEvent) => void {
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? 1000;
  const maxFailures = options.maxFailureLines ?? 20;
  let started = now();
  let pausedAt: number | undefined;
  let pausedMs = 0;
  let lastProgress = -Infinity;
  let lastStaged = -Infinity;
  let stagedRunning: boolean | undefined;
  /** A `--via bulk-staged` run (its phases are told): per-user rates are left out. */
  let staged = false;
  const progress = options.progress ?? options.write;
  let retries = 0;
  let failuresShown = 0;
  let concurrency: { limit: number; max: number } | undefined;
  return (event) => {
    switch (event.type) {
      case 'run-started':
        started = event.at;
        options.write(`migrating ${event.total} users, ${event.concurrency} at a time; journal ${event.journal}`);
        return;
      case 'concurrency':
        concurrency = { limit: event.limit, max: event.max };
        return;
      case 'retry': {
        retries += 1;
        // A core that is down produces no user-done events: say what the run is waiting for, now and then.
        const t = now();
        if (t - lastProgress >= interval * 5) {
          lastProgress = t;
          options.write(
            `waiting for the core: ${event.method} ${event.path.split('?')[0]} failed with ${event.reason}; retry ${event.attempt} in ${Math.round(event.delayMs)} ms`,
          );
        }
        return;
      }
      case 'user-done': {
        const r = event.result;
        if (r.outcome === 'failed') {
          failuresShown += 1;
          if (failuresShown <= maxFailures) options.write(`failed: ${r.id} at step ${r.step}: ${r.status}: ${r.message ?? ''}`);
          else if (failuresShown === maxFailures + 1) options.write('more failures: see the report file');
        }
        const t = now();
        if (t - lastProgress >= interval) {
          lastProgress = t;
          // A staged run settles its users in bulk at the end: a per-user rate would mean nothing (the job's line has it).
          progress(
            staged
              ? `${doneCount(event.totals).toLocaleString('en-US')}/${event.totals.total.toLocaleString('en-US')} users settled, failed ${event.totals.failed}`
              : formatProgress(event.totals, t - started - pausedMs, retries, concurrency),
          );
        }
        return;
      }
      case 'staged-progress': {
        // On a terminal the job's line is redrawn in place; on a pipe it is written when the job starts or stops,
        // and otherwise every ten progress intervals.
        const t = now();
        const line = describeStagedProgress(event);
        if (options.progress) {
          if (t - lastStaged >= interval) {
            lastStaged = t;
            options.progress(line);
          }
        } else if (event.running !== stagedRunning || t - lastStaged >= interval * 10) {
          lastStaged = t;
          options.write(line);
        }
        stagedRunning = event.running;
        return;
      }
      case 'staged-stalled':
        options.write(describeStagedStalled(event));
        return;
      case 'core-knowledge':
        options.write(event.detail);
        return;
      case 'staged-phase':
        staged = true;
        options.write(event.detail);
        return;
      case 'staged-removed':
        options.write(describeStagedRemoved(event));
        return;
      case 'paused':
        pausedAt = event.at;
        options.write('paused');
        return;
      case 'resumed':
        if (pausedAt !== undefined) pausedMs += event.at - pausedAt;
        pausedAt = undefined;
        options.write('resumed');
        return;
      case 'stopping':
        options.write(
          event.reason === 'fatal'
            ? `stopping: ${event.message ?? 'fatal error'}`
            : 'stopping: no new users are started; in-flight steps finish and the journal is flushed',
        );
        return;
      case 'finished':
        options.write(`${event.stopped ? 'stopped' : 'finished'} in ${duration(event.durationMs)}: ${formatTotals(event.totals)}`);
        return;
    }
  };
}
