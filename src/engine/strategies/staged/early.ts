// `--via bulk-staged`, reading back with the core's job: each claim it finishes is read back while it imports the
// next, so that once it is done only its last claim is left to read. The reference's job claims staged rows in the
// order they were stored (its claim has no ORDER BY: postgresql plugin v9.4.2 BulkImportQueries.java line
// 157-161; docs/benchmarks.md has the claims of a run as measured), splits a claim into one contiguous chunk per CPU, imports each
// chunk in one transaction and then takes its rows out of the list (ProcessBulkUsersImportWorker). So when the list
// holds N of this run's rows fewer than it put there (NEW and PROCESSING counted), the first N rows the run listed
// are most likely imported: the users it added up to the N-th listed one are read back then (only their range of
// join times), whatever the job does meanwhile. Nothing rests on that order: a user read before the job imported it
// (a claim's second chunk done before its first, rows of an earlier run claimed first) stays awaited, is read once
// more with the next read, and else by the final read-back (readback.ts); a range that would hold many users
// the job has likely not reached yet is not read (a source not in join-time order: the final read does it); a
// failed read is left to the next one. Reads that settled fewer than a third of the users they read anew (from the
// second read on, the retries counted) mean the claims do not follow the upload here (PostgreSQL put new rows
// where removed ones were): the run reads no more before the job is done. `readTo` (every user below it read back at least once) is what the results
// written meanwhile follow (along.ts).
// That order held on a fresh table only: at a million users the job removes rows while later uploads land, and
// its claims take rows of uploads far apart (docs/benchmarks.md). So where the uploads can be told apart in the
// list (batches.ts), a read waits for no order: it reads the users of the uploads the job has taken whole
// (none of their rows NEW or PROCESSING), each run of adjacent ones on its own, and `readTo` follows the uploads
// taken whole from the first; the counts then only say when to look. At scale, once few rows are left beside the
// run (TAIL), the rows left are listed and every user out of the list is read back (tail.ts), so that the final read
// has only the job's last claims.
// Invariant: a user is confirmed only by a read of the core that finds it; a read that fails changes nothing.
import type { CoreClient } from '../../../core-client/types.js';
import type { ListedBatches } from './batches.js';
import { AWAITED, awaitedJoined, isAwaited, joinRange, readBackJoined } from './readback.js';
import { skipGaps, USERS_PAGE } from './slices.js';
import type { StagedTable } from './table.js';
import { readOutOfList } from './tail.js';

/** Users newly out of the list before a read is worth its requests (2 pages). */
const EARLY_FROM = 1_000;
/** Users the job has likely not reached yet that a read's range may hold, as a share of those it reads. */
const UNREACHED_SHARE = 0.25;
/** Groups of awaited users a read reads apart at most (skipping the settled users between them). */
const READ_GROUPS = 3;
/** Below this share of the users read anew settled (over the reads so far, from the second), no more reads. */
const WORTH_READING = 1 / 3;
/** The same beside the uploads' probe, which settles what the claims' order leaves. */
const WORTH_READING_BESIDE = 0.9;
/**
 * The job's tail (tail.ts): a run of at least `runFrom` rows listed, with at most `rowsLeft` of them left in the list
 * (100 listing requests at most a look), reads back every user out of the list. Smaller runs read by their uploads
 * and counts alone. On a list the job has removed rows from, its claims mix the uploads, and the final read of a
 * 20,000-user run then has 10,000 users left; the tail from 10,000 rows read them sooner but made no turn shorter
 * (docs/benchmarks.md, "Tried: the job's tail from a full upload").
 */
export const TAIL = { rowsLeft: 50_000, runFrom: 100_000 };
/** Rows left at most for a tail read in the job's pause whatever few users are out (10 listing requests). */
const TAIL_PAUSED_ROWS = 5_000;

export class EarlyReadBack {
  /** Table indexes below this were read back at least once while the job worked. */
  readTo = 0;
  /** Where the last read's new users began: those still awaited from here are read once more with the next. */
  private retryFrom = 0;
  private reading: Promise<void> | undefined;
  /** Users the reads while the job worked settled (confirmed or found held otherwise). */
  settled = 0;
  /** Reads made while the job worked. */
  reads = 0;
  /** Users read for the first time by the reads that go by the counts, and how many of them these settled. */
  private readAnew = 0;
  private countSettled = 0;
  private countReads = 0;
  /** The claims do not follow the upload: no more reads before the job is done. */
  off = false;

  /** Users out of the list (by the counts) when the uploads were last probed. */
  private probedAt = 0;
  /** Uploads taken whole by the job and not read back yet; uploads read back. */
  private unread: number[] = [];
  private readonly uploadsRead = new Set<number>();
  private readPrefix = 0;
  /** Users out of the list (by the counts) when the tail was last read. */
  private tailAt = 0;

  /** `onRead`: after each read that ended well (`readTo` moved). `batches`: the run's uploads, when they are told. */
  constructor(
    private readonly core: CoreClient,
    private readonly table: StagedTable,
    private readonly onRead: () => void = () => undefined,
    private readonly batches?: ListedBatches,
    private readonly tail: { rowsLeft: number; runFrom: number } = TAIL,
  ) {}

  /**
   * After a look at the job: its list's rows still NEW, and those it works on (PROCESSING). `listed`: the run's rows
   * listed before the counts were asked for (a row listed meanwhile may be missing from them); `paused`: the job's
   * run has ended (nothing moved for a while) and rows still wait for its next one.
   */
  consider(fresh: number, processing: number, o: { listed?: number; paused?: boolean } = {}): void {
    const listed = o.listed ?? this.table.listedCount;
    const table = this.table;
    const waiting = fresh + processing;
    // Not while a read is under way, nor once the job is done (the final read is next).
    if (this.reading || waiting === 0) return;
    const out = Math.min(listed, listed - waiting);
    if (out <= 0) return;
    // At the tail the list says who is out: no other read. Listed again once a fifth as many users as rows left are
    // out since (at most a request for 100 users out), or when the job pauses with a few pages left.
    if (listed >= this.tail.runFrom && waiting <= this.tail.rowsLeft) {
      const since = out - this.tailAt;
      if (since > 0 && (since >= Math.max(EARLY_FROM, waiting / 5) || (o.paused && waiting <= TAIL_PAUSED_ROWS)))
        this.reading = this.readTail(out).finally(() => (this.reading = undefined));
      return;
    }
    const byUploads = this.batches !== undefined && !this.batches.off && this.batches.ends.length > 0;
    // While the job works, once enough more is out; once its run has ended (paused), whatever it finished, so that
    // no result waits for its next run.
    const probe = byUploads && out > this.probedAt && !(out - this.probedAt < EARLY_FROM && !o.paused);
    const bound = table.listedAt(out - 1) + 1;
    const byCount = !this.off && bound > this.readTo && !(bound - this.readTo < EARLY_FROM && !o.paused);
    if (!probe && !byCount) return;
    this.reading = (async () => {
      if (probe) await this.readTakenUploads(out);
      if (byCount && !this.off && bound > this.readTo) await this.readByCount(bound, byUploads);
    })().finally(() => (this.reading = undefined));
  }

  /**
   * The users listed up to `bound` read back (those of the last read left awaited once more). Beside the uploads'
   * probe (`strict`), `readTo` stops at the first user the read left awaited (the probe's reads move it on), and
   * reads that settle less than nine in ten of their users stop: the claims do not follow the upload.
   */
  private async readByCount(bound: number, strict: boolean): Promise<void> {
    const table = this.table;
    const from = this.retryFrom;
    const joins = awaitedJoined(table, from, bound);
    if (joins.length > 0 && this.unreached(joins, bound) > joins.length * UNREACHED_SHARE) return; // the final read
    const awaitedNew = awaitedJoined(table, this.readTo, bound).length;
    const groups = joins.length === 0 ? [] : skipGaps(table.joined.subarray(from, bound), joins, READ_GROUPS, USERS_PAGE);
    this.reads++;
    this.countReads++;
    try {
      await Promise.all(groups.map((g) => readBackJoined(this.core, table, g)));
      this.readAnew += awaitedNew;
      this.retryFrom = this.readTo;
      const to = strict ? firstAwaited(table, this.readTo, bound) : bound;
      if (to > this.readTo) {
        this.readTo = to;
        this.onRead();
      }
    } catch {
      // the next read (or the final one) reads these users again, and says why if it fails too
    } finally {
      // Counted in the read's range (the table grows meanwhile while later batches are uploaded).
      const settled = joins.length - awaitedJoined(table, from, bound).length;
      this.settled += settled;
      this.countSettled += settled;
      if (this.countReads >= 2 && this.countSettled < this.readAnew * (strict ? WORTH_READING_BESIDE : WORTH_READING)) this.off = true;
    }
  }

  /** The uploads the job has taken whole read back (each run of adjacent ones apart); `readTo` after those from the first. */
  private async readTakenUploads(out: number): Promise<void> {
    const batches = this.batches!;
    const table = this.table;
    try {
      this.unread.push(...(await batches.probe()));
    } catch {
      return; // the next look probes again
    }
    this.probedAt = out;
    const runs: number[][] = [];
    for (const k of this.unread.sort((a, b) => a - b)) {
      const run = runs.at(-1);
      if (run && run.at(-1) === k - 1) run.push(k);
      else runs.push([k]);
    }
    for (const run of runs) {
      const lo = batches.start(run[0]!);
      const hi = batches.ends[run.at(-1)!]!;
      const joins = awaitedListed(table, lo, hi);
      // Join times not in the upload order (a range holding many users still waiting): left to the final read.
      if (joins.length > 0 && this.othersInRange(joins) > joins.length * UNREACHED_SHARE) continue;
      this.reads++;
      try {
        await readBackJoined(this.core, table, joins);
      } catch {
        continue; // read with the next probe (or the final read)
      }
      this.settled += joins.length - awaitedListed(table, lo, hi).length;
      for (const k of run) this.uploadsRead.add(k);
    }
    this.unread = this.unread.filter((k) => !this.uploadsRead.has(k));
    while (this.uploadsRead.has(this.readPrefix)) this.readPrefix++;
    const end = this.readPrefix > 0 ? batches.ends[this.readPrefix - 1]! : 0;
    const bound = end > 0 ? table.listedAt(end - 1) + 1 : 0;
    if (bound > this.readTo) {
      this.readTo = bound;
      this.onRead();
    }
  }

  /** The users out of the list read back (tail.ts); `readTo` up to the first user still awaited. */
  private async readTail(out: number): Promise<void> {
    const table = this.table;
    const before = table.countIn(...AWAITED);
    this.tailAt = out;
    this.reads++;
    try {
      await readOutOfList(this.core, table);
    } catch {
      return; // read with the next look (or the final read)
    }
    this.settled += before - table.countIn(...AWAITED);
    const listed = table.listedCount;
    const to = firstAwaited(table, this.readTo, listed > 0 ? table.listedAt(listed - 1) + 1 : 0);
    if (to > this.readTo) {
      this.readTo = to;
      this.onRead();
    }
  }

  /** Awaited users outside those of `joins` whose join times lie in their range. */
  private othersInRange(joins: Float64Array): number {
    const { from, to } = joinRange(joins);
    const table = this.table;
    let n = 0;
    for (let i = 0; i < table.size; i++) {
      const t = table.joined[i]!;
      if (t >= from && t <= to && isAwaited(table.state[i])) n++;
    }
    return n - joins.length;
  }

  /** Awaited users from `bound` on whose join times lie in the range of `joins` (the job has likely not reached them). */
  private unreached(joins: Float64Array, bound: number): number {
    const { from, to } = joinRange(joins);
    const table = this.table;
    let n = 0;
    for (let i = bound; i < table.size; i++) {
      const t = table.joined[i]!;
      if (t >= from && t <= to && isAwaited(table.state[i])) n++;
    }
    return n;
  }

  /** The read under way, if any, finished. */
  async idle(): Promise<void> {
    await this.reading;
  }
}

/** The join times of the awaited users listed from position `lo` to before `hi` (in the list's order). */
function awaitedListed(table: StagedTable, lo: number, hi: number): Float64Array {
  const out = new Float64Array(Math.max(0, hi - lo));
  let k = 0;
  for (let p = lo; p < hi; p++) {
    const i = table.listedAt(p);
    if (isAwaited(table.state[i])) out[k++] = table.joined[i]!;
  }
  return out.subarray(0, k);
}

/** The first table index from `lo` to before `hi` still awaited (`hi` when none is). */
function firstAwaited(table: StagedTable, lo: number, hi: number): number {
  for (let i = lo; i < hi; i++) if (isAwaited(table.state[i])) return i;
  return hi;
}
