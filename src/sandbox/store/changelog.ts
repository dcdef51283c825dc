// The append-only change log: JSON lines, group-committed. Every change handed over while a write is in
// flight joins the next group, and one fdatasync makes the whole group durable before any of it is answered.
// Writes go one at a time, in order; a group's fdatasync may overlap the next group's write and fdatasync
// (at most MAX_SYNCS at once), so a request does not wait for a whole earlier flush before its own starts.
import { rename, type FileHandle } from 'node:fs/promises';
import { openPrivate, writeWhole } from '../../files/private.js';

interface Waiter {
  /** Resolve once this many appended lines are durable. */
  target: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** fdatasyncs in flight at once: with two, a new group's flush starts while the previous one finishes. */
const MAX_SYNCS = 2;

export class ChangeLog {
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  /** A write (or a rotation) is in progress. */
  private busy = false;
  /** fdatasyncs in flight. */
  private readonly syncs = new Set<Promise<void>>();
  private pausedFor: (() => Promise<void>) | null = null;
  /** Lines handed over so far, and how many of them are on disk. */
  private appended = 0;
  private durable = 0;
  /** Bytes appended to the current file. */
  bytes = 0;
  /** fdatasync calls so far (one per group of changes). */
  groups = 0;

  private constructor(
    private readonly path: string,
    private fh: FileHandle,
  ) {}

  static async open(path: string): Promise<ChangeLog> {
    const fh = await openPrivate(path, 'a');
    const log = new ChangeLog(path, fh);
    log.bytes = (await fh.stat()).size;
    return log;
  }

  /** Resolves once `line` (no newline) is on disk. */
  append(line: string): Promise<void> {
    this.pending.push(line + '\n');
    const target = ++this.appended;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ target, resolve, reject }));
    this.kick();
    return done;
  }

  /** Resolves when every line appended so far is durable (not waiting for lines appended later). */
  drain(): Promise<void> {
    if (this.durable >= this.appended) return Promise.resolve();
    const target = this.appended;
    return new Promise((resolve, reject) => this.waiters.push({ target, resolve, reject }));
  }

  /**
   * Between two groups: rename the current file to `oldPath`, start a fresh one, then run `during`
   * (which must be quick: it captures state) before writes resume.
   */
  rotate(oldPath: string, during: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pausedFor = async () => {
        try {
          await this.fh.close();
          await rename(this.path, oldPath);
          this.fh = await openPrivate(this.path, 'a');
          this.bytes = 0;
          during();
          resolve();
        } catch (err) {
          reject(err as Error);
          throw err;
        }
      };
      this.kick();
    });
  }

  private kick(): void {
    if (this.busy) return;
    if (this.pausedFor) {
      // A rotation closes the file: only once nothing is being written or flushed.
      if (this.syncs.size > 0) return;
      const task = this.pausedFor;
      this.pausedFor = null;
      this.busy = true;
      task().then(
        () => this.done(),
        (err: Error) => {
          this.busy = false;
          this.fail(err);
        },
      );
      return;
    }
    if (this.pending.length === 0 || this.syncs.size >= MAX_SYNCS) return;
    const text = this.pending.join('');
    const upTo = this.appended;
    this.pending = [];
    this.busy = true;
    this.groups++;
    const fh = this.fh;
    writeWhole(fh, text).then(
      () => {
        this.bytes += Buffer.byteLength(text);
        // Everything written before this call is on disk when it returns, earlier groups' lines included.
        const sync: Promise<void> = fh.datasync().then(
          () => {
            this.syncs.delete(sync);
            if (upTo > this.durable) this.durable = upTo;
            this.settle(
              (w) => w.target <= this.durable,
              (w) => w.resolve(),
            );
            this.kick();
          },
          (err: Error) => {
            this.syncs.delete(sync);
            this.fail(err);
          },
        );
        this.syncs.add(sync);
        this.done();
      },
      (err: Error) => {
        this.busy = false;
        this.fail(err);
      },
    );
  }

  private settle(match: (w: Waiter) => boolean, act: (w: Waiter) => void): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (match(w)) act(w);
      else keep.push(w);
    }
    this.waiters = keep;
  }

  private done(): void {
    this.busy = false;
    this.kick();
  }

  /** A failed write, flush or rotation fails every waiting request; later appends try again. */
  private fail(err: Error): void {
    this.settle(
      () => true,
      (w) => w.reject(err),
    );
    this.pending = [];
    this.durable = this.appended;
    this.kick();
  }

  async close(): Promise<void> {
    await this.drain();
    await Promise.allSettled([...this.syncs]);
    await this.fh.close();
  }
}
