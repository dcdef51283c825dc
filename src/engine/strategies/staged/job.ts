// `--via bulk-staged`: the operator's view of the core's bulk-import job, from the staging list's counts read every
// poll. The reference's job (ProcessBulkImportUsers) runs at the core's start and then `interval` after its previous
// run ended (scheduleWithFixedDelay, 300 s), each run importing the rows waiting when it began. So: the job is running
// while rows are claimed (PROCESSING) or leave the list; its rate is measured only while it runs; the ETA is given only
// once there is a rate; its next run is known from the end of one it was seen doing, else bounded by `interval` from
// when the rows were first seen waiting; and when nothing moves for longer than two intervals and a margin, and never
// less than a minute (a run starts late on a busy core: the reference at a 5 s interval once ran 27 s after its last),
// it is not running at all (switched off, say, BULK_MIGRATION_CRON_ENABLED=false): stalled.
// Between two batches of one run nothing is claimed for up to a second (the run checks its workers every 1,000 ms:
// ProcessBulkImportUsers.java, Thread.sleep(1000)), so a run ends only once nothing has moved for longer.
// The users taken are counted from the list's counts and the rows the run has put there. A count asked for while an
// upload is under way may or may not hold its rows (they appear when its transaction commits, before its answer): such
// a count gives only a lower bound, and the counts the next ones are measured from are the last ones asked for with
// no upload under way (a 20,000-user run once said "24,000 of this run's 20,000 taken").
// Invariant: stalled is said only after nothing moved for longer than `stallAfterMs` (default: two job intervals and a
// margin, at least a minute); "taken" never exceeds the rows this run put in the list.
import type { RunEvent } from '../../events.js';

export interface JobCounts {
  NEW: number;
  PROCESSING: number;
  FAILED: number;
}

export type StagedProgress = Extract<RunEvent, { type: 'staged-progress' }>;

/** What the watcher knew of the run's uploads when the counts were asked for (`JobWatcher.asking`). */
export interface CountsAsked {
  /** Rows of this run's answered uploads. */
  answered: number;
  /** Rows of an upload under way (not answered yet): they may or may not be in the counts. */
  flying: number;
}

/** Counts the next observation's "taken" is measured from. */
interface Base {
  waiting: number;
  answered: number;
  /** Rows under way then, which these counts may hold: taken from them for a lower bound. */
  flying: number;
  processed: number;
}

/** Rate window: the job's last this-many milliseconds of work. */
const RATE_WINDOW_MS = 30_000;
/** A pause this short while rows still wait is the run between two batches, not its end. */
const BETWEEN_BATCHES_MS = 2_000;
/** Added to two intervals before "stalled": the interval itself, up to this. */
const STALL_MARGIN_MAX_MS = 30_000;
/**
 * "Stalled" never before this, whatever the interval: at the 5 s of a test build, the reference on a busy machine
 * started a run 27 s after its last (bench m33c), and two intervals and a margin (15 s) stopped a run that was fine.
 */
const STALL_FLOOR_MS = 60_000;

/** How long nothing may move, with rows waiting, before the job is taken for stalled (when the run was not told). */
export function defaultStallAfterMs(intervalMs: number): number {
  return Math.max(STALL_FLOOR_MS, 2 * intervalMs + Math.min(intervalMs, STALL_MARGIN_MAX_MS));
}

export class JobWatcher {
  /** Rows of this run's answered uploads; rows of the upload under way. */
  private uploaded = 0;
  private flying = 0;
  private base: Base | undefined;
  private last: JobCounts | undefined;
  /** Users the job has taken out of the waiting rows (imported or failed) since the run began. */
  private processed = 0;
  private lastMove: number | undefined;
  private firstWaiting: number | undefined;
  private runStartedAt: number | undefined;
  private lastRunEndedAt: number | undefined;
  private running = false;
  /** (time, processed) while running, for the rate. */
  private samples: Array<[number, number]> = [];
  private lastRate: number | undefined;

  constructor(
    readonly intervalMs: number,
    /** Users this run has staged and not seen settled: the denominator of "imported". */
    private readonly total: () => number,
    /** Nothing moving for longer than this, with rows waiting, is a stall (`run --stall-after`). */
    readonly stallAfterMs: number = defaultStallAfterMs(intervalMs),
  ) {}

  /** An upload of `n` rows leaves (its rows may be in the list before it is answered). */
  staging(n: number): void {
    this.flying += n;
  }

  /** This run put `n` rows in the list (an upload's answer, or its rows found there). */
  staged(n: number): void {
    this.uploaded += n;
    this.flying = Math.max(0, this.flying - n);
  }

  /** The upload under way is over (its rows staged or refused): none are under way. */
  landed(): void {
    this.flying = 0;
  }

  /** Before the counts are asked for: what they are measured against (`observe`). */
  asking(): CountsAsked {
    return { answered: this.uploaded, flying: this.flying };
  }

  /** The list's counts, asked for after `asked` (by default: now, with no upload under way). */
  observe(counts: JobCounts, now: number, asked: CountsAsked = this.asking()): StagedProgress {
    const waiting = counts.NEW + counts.PROCESSING;
    // Rows the counts may hold or not: those under way when they were asked for, and any begun or answered since.
    const flying = Math.max(asked.flying, this.uploaded + this.flying - asked.answered);
    const before = this.processed;
    if (this.base) {
      const b = this.base;
      const out = b.waiting - b.flying + (asked.answered - b.answered) - waiting;
      this.processed = Math.min(this.uploaded, Math.max(this.processed, b.processed + out));
    }
    if (!this.base || flying === 0) this.base = { waiting, answered: asked.answered, flying, processed: this.processed };
    const moved = this.processed - before;
    const active = counts.PROCESSING > 0 || moved > 0 || (this.last !== undefined && counts.FAILED !== this.last.FAILED);
    this.last = counts;
    if (waiting > 0 && this.firstWaiting === undefined) this.firstWaiting = now;
    const betweenBatches = this.running && waiting > 0 && now - (this.lastMove ?? now) <= BETWEEN_BATCHES_MS;
    if (betweenBatches && !active) {
      // The run is still on: no sample, no end.
    } else if (active) {
      if (!this.running) {
        this.running = true;
        this.runStartedAt = now;
        this.samples = [];
      }
      this.lastMove = now;
      this.samples.push([now, this.processed]);
      while (this.samples.length > 2 && now - this.samples[0]![0] > RATE_WINDOW_MS) this.samples.shift();
    } else if (this.running) {
      // Nothing claimed, nothing left the list: the run ended (the next starts `interval` after this).
      this.running = false;
      this.lastRunEndedAt = this.lastMove ?? now;
    }
    const rate = this.rate();
    if (rate !== undefined) this.lastRate = rate;
    const event: StagedProgress = {
      type: 'staged-progress',
      staged: counts.NEW,
      processing: counts.PROCESSING,
      failed: counts.FAILED,
      imported: this.processed,
      of: Math.max(this.uploaded, this.total()),
      running: this.running,
      idleMs: this.idleMs(now),
      intervalMs: this.intervalMs,
      at: now,
    };
    if (this.lastRate !== undefined) event.rate = this.lastRate;
    const next = this.nextRun(now);
    if (next) Object.assign(event, next);
    if (this.lastRate !== undefined && waiting > 0) {
      const work = (waiting / this.lastRate) * 1000;
      if (this.running) event.etaMs = work;
      else if (event.nextRunInMs !== undefined) event.etaMs = event.nextRunInMs + work;
    }
    return event;
  }

  /** Users per second over the window, once the job has run long enough to tell. */
  private rate(): number | undefined {
    if (this.samples.length < 2) return undefined;
    const [t0, p0] = this.samples[0]!;
    const [t1, p1] = this.samples.at(-1)!;
    if (t1 - t0 < 1000 || p1 === p0) return undefined;
    return ((p1 - p0) / (t1 - t0)) * 1000;
  }

  /** When the job should start next: known after a run it was seen ending, else at most `interval` away. */
  private nextRun(now: number): { nextRunInMs: number; nextRunExact: boolean } | undefined {
    if (this.running) return undefined;
    if (this.lastRunEndedAt !== undefined)
      return { nextRunInMs: Math.max(0, this.lastRunEndedAt + this.intervalMs - now), nextRunExact: true };
    if (this.firstWaiting !== undefined)
      return { nextRunInMs: Math.max(0, this.firstWaiting + this.intervalMs - now), nextRunExact: false };
    return undefined;
  }

  /** How long nothing has moved while rows wait (0 when nothing waits or the job is running). */
  idleMs(now: number): number {
    const waiting = this.last ? this.last.NEW + this.last.PROCESSING : 0;
    if (waiting === 0 || this.running) return 0;
    const since = this.lastMove ?? this.firstWaiting ?? now;
    return now - since;
  }

  /** Nothing has moved for longer than `stallAfterMs` while rows wait: the job is not running. */
  stalled(now: number): boolean {
    return this.idleMs(now) > this.stallAfterMs;
  }

  get startedAt(): number | undefined {
    return this.runStartedAt;
  }
}
