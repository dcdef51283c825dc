// `--via bulk-staged`, reading back in the pauses of the core's job, so that little is left to read once it is done.
// The reference's job claims staged rows in the order they were stored (its claim has no ORDER BY: postgresql
// plugin v9.4.2 BulkImportQueries.java line 157-161; measured on it: the claims of a 20,000-user run, 8,000,
// 8,000 and 4,000 rows, took users 0-8,029, 7,998-15,999 and 16,000-19,999 of the upload), and imports each
// claim whole before the next (ProcessBulkImportUsers waits for every chunk, looking once a second: the next claim
// comes up to a second after the last row of one is done). So when the list holds N rows fewer than the run staged
// and none PROCESSING, the first N users the run added to its table are most likely settled: the range of their
// join times is read back then, in the job's pause (read while it worked, on a 2-core machine both went at half
// speed and the reads fell behind); the final read-back (staged-readback.ts) reads only the range of the users
// still awaited. Nothing rests on that order: a user read early before the job
// imported it stays awaited and the final read settles it; a range that would hold many users the job has most
// likely not reached yet is not read early (a source not in join-time order); a failed early read is left to the
// final one. When an early read finds fewer than half the users it expected imported, the job does not take rows
// in their order here (the claim follows the table's pages: rows of two uploads at once interleave there, which is
// why the run uploads one batch at a time; PostgreSQL may also put new rows where removed ones were), and the run
// reads no more early.
import type { CoreClient } from '../core-client/types.js';
import { AWAITED, awaitedJoined, isAwaited, joinRange, readBackJoined } from './staged-readback.js';
import type { StagedTable } from './staged-table.js';

/** Users to settle before an early read is worth its requests (4 pages). */
const EARLY_FROM = 2_000;
/** Users the job has likely not reached yet that an early read's range may hold, as a share of those it settles. */
const UNREACHED_SHARE = 0.25;

export class EarlyReadBack {
  /** Table indexes below this were read back early (or judged not worth it). */
  private readTo = 0;
  private reading: Promise<void> | undefined;
  /** Users an early read settled (confirmed or found held otherwise). */
  settled = 0;
  /** An early read found too few of its users: the job's order is not the run's. */
  private off = false;

  /** `onRead`: after each early read that ended well. */
  constructor(
    private readonly core: CoreClient,
    private readonly table: StagedTable,
    private readonly onRead: () => void = () => undefined,
  ) {}

  /** After a look at the job: its list's rows still NEW, and those it works on (PROCESSING). */
  consider(fresh: number, processing: number): void {
    // Not while the job works on a claim, nor once it is done (the final read is next).
    if (this.off || this.reading || processing > 0 || fresh === 0) return;
    const table = this.table;
    const done = Math.min(table.size, Math.max(0, table.size - fresh));
    if (done - this.readTo < EARLY_FROM) return; // nothing much yet
    const joins = awaitedJoined(table, this.readTo, done);
    if (joins.length < EARLY_FROM / 2) {
      this.readTo = done;
      return;
    }
    const { from, to } = joinRange(joins);
    let unreached = 0;
    for (let i = done; i < table.size; i++) {
      const t = table.joined[i]!;
      if (isAwaited(table.state[i]) && t >= from && t <= to) unreached++;
    }
    if (unreached > joins.length * UNREACHED_SHARE) return; // wait: a later look may find the range clean
    const before = table.countIn(...AWAITED);
    this.reading = readBackJoined(this.core, table, joins)
      .then(
        () => {
          this.readTo = done;
          this.onRead();
        },
        () => undefined, // the final read-back reads these users again, and says why if it fails too
      )
      .finally(() => {
        const settled = before - table.countIn(...AWAITED);
        this.settled += settled;
        if (settled < joins.length / 2) this.off = true;
        this.reading = undefined;
      });
  }

  /** The early read under way, if any, finished. */
  async idle(): Promise<void> {
    await this.reading;
  }
}
