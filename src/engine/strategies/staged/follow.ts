// `--via bulk-staged`, following the core's job: its list's counts (NEW, then PROCESSING and FAILED: three cheap
// requests), told to the operator's view (job.ts) and to the read-back in the job's pauses
// (early.ts); this run's FAILED rows read when their number changes; and, once only the job is left, a look
// every `followMs` (every 100 ms once no row waits to be claimed) until it has taken every staged user, or a stop
// when it stalls.
// Invariant: NEW + PROCESSING as counted never falls short of the rows still waiting (NEW is asked for first).
import { UserError } from '../../../errors.js';
import { describeStagedStalled } from '../../render/job-line.js';
import type { EngineContext } from '../../strategy.js';
import type { EarlyReadBack } from './early.js';
import type { JobCounts, JobWatcher } from './job.js';
import { scanFailedRows } from './readback.js';
import { STAGED, type StagedTable } from './table.js';

/** How often the job is looked at while it works on the last of the run's rows. */
const LAST_CLAIM_LOOK_MS = 100;
/**
 * A job whose run has ended and whose next run is at least this far away has its finished users read back now,
 * however few (a sooner run brings more of them to the same read).
 */
const PAUSE_READ_MS = 5_000;

/**
 * The list's counts. NEW is asked for before PROCESSING: a row only goes NEW -> PROCESSING -> out, so a row waiting
 * when PROCESSING is counted was counted in one of the two, and NEW + PROCESSING never falls short of the rows
 * still waiting (asked for at once, a claim taken between the two answers could hide its rows from both, and the
 * read-back with the job would read users the job has not imported yet).
 */
async function readCounts(ctx: EngineContext): Promise<JobCounts> {
  const c = ctx.core.bulkImport;
  const n = await c.countUsers('NEW');
  const [p, f] = await Promise.all([c.countUsers('PROCESSING'), c.countUsers('FAILED')]);
  return { NEW: n.count, PROCESSING: p.count, FAILED: f.count };
}

export class JobFollower {
  /** When the job was last looked at (ms). */
  lastLook = 0;
  private lastFailed = -1;

  constructor(
    private readonly ctx: EngineContext,
    private readonly table: StagedTable,
    private readonly watcher: JobWatcher,
    private readonly early: EarlyReadBack,
    private readonly followMs: number,
  ) {}

  /** One look at the job (counts; this run's FAILED rows when their number changed). */
  async look(): Promise<JobCounts> {
    this.lastLook = Date.now();
    const listed = this.table.listedCount;
    const asked = this.watcher.asking();
    const counts = await readCounts(this.ctx);
    const progress = this.watcher.observe(counts, Date.now(), asked);
    this.ctx.emit(progress);
    const paused = progress.idleMs > 0 && (progress.nextRunInMs ?? 0) >= PAUSE_READ_MS;
    this.early.consider(counts.NEW, counts.PROCESSING, { listed, paused });
    if (counts.FAILED !== this.lastFailed) {
      await scanFailedRows(this.ctx.core, this.table);
      this.lastFailed = counts.FAILED;
    }
    return counts;
  }

  /**
   * Follow the job until it has taken every staged user; then its FAILED rows. False when the run stops instead
   * (the job stalled, or a stop was asked for). `started`: told once there is something to wait for.
   */
  async toTheEnd(started: () => void): Promise<boolean> {
    const { ctx, watcher } = this;
    if (this.table.countIn(STAGED) === 0) return true;
    started();
    for (;;) {
      const counts = await this.look();
      const waiting = counts.NEW + counts.PROCESSING;
      if (waiting === 0) break;
      const now = Date.now();
      if (watcher.stalled(now)) {
        const { intervalMs, stallAfterMs: afterMs } = watcher;
        const stalled = { type: 'staged-stalled', idleMs: watcher.idleMs(now), intervalMs, afterMs, waiting, at: now } as const;
        ctx.emit(stalled);
        ctx.requestStop('fatal', new UserError(describeStagedStalled(stalled)));
        return false;
      }
      // The job's last claim under way: its end is looked for more often (the read-back waits for it).
      await ctx.sleep(counts.NEW === 0 ? Math.min(LAST_CLAIM_LOOK_MS, this.followMs) : this.followMs);
      if (ctx.isStopping()) return false;
    }
    await scanFailedRows(ctx.core, this.table);
    return true;
  }
}
