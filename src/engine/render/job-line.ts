// The operator's line about the core's bulk-import job (`--via bulk-staged`), the same for the plain renderer and
// the wizard's run screen: counts, the job's state and rate, an ETA only once there is a rate, when it runs next.
// Invariant: no ETA is shown before the job has been seen working (a rate measured).
import type { RunEvent } from '../events.js';

type Progress = Extract<RunEvent, { type: 'staged-progress' }>;
type Stalled = Extract<RunEvent, { type: 'staged-stalled' }>;
type Removed = Extract<RunEvent, { type: 'staged-removed' }>;

const n = (x: number): string => Math.round(x).toLocaleString('en-US');

/** 4m05s, 1h02m03s; never more than hours (the figures here are minutes, an ETA beyond days is not one). */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m${sec}s` : `${m}m${sec}s`;
}

function jobState(e: Progress): string {
  if (e.running) return 'running';
  const every = `it runs every ${shortDuration(e.intervalMs)}`;
  if (e.nextRunInMs === undefined) return `idle (${every})`;
  if (e.nextRunInMs === 0) return `due to run now (${every})`;
  return e.nextRunExact
    ? `next run in about ${shortDuration(e.nextRunInMs)} (${every})`
    : `next run within ${shortDuration(e.nextRunInMs)} (${every})`;
}

export function describeStagedProgress(e: Progress): string {
  const counts = `${n(e.staged)} staged, ${n(e.processing)} processing, ${n(e.failed)} failed in its list`;
  const done = `${n(e.imported)} of this run's ${n(e.of)} taken by the job`;
  const rate = e.rate !== undefined ? `, ${n(e.rate)}/s` : '';
  // An ETA only from a measured rate, and not a silly one (a job that barely moved says "not yet known").
  const eta =
    e.etaMs !== undefined && e.etaMs < 48 * 3_600_000
      ? `, ETA ${shortDuration(e.etaMs)}`
      : e.staged + e.processing > 0
        ? ', ETA once the job has run'
        : '';
  const idle = !e.running && e.idleMs >= 60_000 ? `; nothing has moved for ${shortDuration(e.idleMs)}` : '';
  return `core's bulk-import job: ${jobState(e)}; ${counts}; ${done}${rate}${eta}${idle}`;
}

export function describeStagedStalled(e: Stalled): string {
  return (
    `warning: the core's bulk-import job has not moved for ${shortDuration(e.idleMs)} (more than the ` +
    `${shortDuration(e.afterMs)} allowed at its ${shortDuration(e.intervalMs)} interval) with ${n(e.waiting)} users ` +
    'waiting in its list: it is not running (on the reference core, BULK_MIGRATION_CRON_ENABLED=false switches it ' +
    'off). Stopping; the users this run staged and the job has not started are taken out of the list; the same ' +
    'command carries on once the job runs (or use --via steps). If the core runs its job less often, say so with ' +
    '--job-interval SECONDS; if it is only slow to start, give it longer with --stall-after SECONDS.'
  );
}

/**
 * A stop took the run's rows the job had not claimed out of its list. The core removes a row whatever its status
 * (DeleteBulkImportUserAPI; BulkImportQueries.deleteBulkImportUsers has no status condition), so a row the job claimed
 * between the listing and the removal is still imported: the journal keeps every one of them as staged, and the
 * next run reads the core to settle them.
 */
export function describeStagedRemoved(e: Removed): string {
  return (
    `took ${n(e.removed)} staged users back out of the core's list (listed as not yet started; one the job claimed ` +
    `meanwhile may still arrive), ${n(e.left)} left to the job; the same command carries on and settles them all`
  );
}
