// The append-only change log: JSON lines, group-committed. Every change handed over while a write is in
// flight joins the next group, and one fdatasync makes the whole group durable before any of it is answered.
import { rename, type FileHandle } from 'node:fs/promises';
import { openPrivate } from '../../files/private.js';

interface Waiter {
  /** Resolve once this many appended lines are durable. */
  target: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class ChangeLog {
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  private busy = false;
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
      const task = this.pausedFor;
      this.pausedFor = null;
      this.busy = true;
      task().then(
        () => this.done(),
        (err: Error) => this.fail(err),
      );
      return;
    }
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    const upTo = this.appended;
    this.pending = [];
    this.busy = true;
    this.groups++;
    this.fh
      .write(text)
      .then(() => this.fh.datasync())
      .then(
        () => {
          this.bytes += Buffer.byteLength(text);
          this.durable = upTo;
          this.settle(
            (w) => w.target <= upTo,
            (w) => w.resolve(),
          );
          this.done();
        },
        (err: Error) => this.fail(err),
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

  /** A failed write or rotation fails every waiting request; later appends try again. */
  private fail(err: Error): void {
    this.settle(
      () => true,
      (w) => w.reject(err),
    );
    this.pending = [];
    this.durable = this.appended;
    this.busy = false;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.fh.close();
  }
}
