// The append-only change log: JSON lines, group-committed. Every change handed over while a write is in
// flight joins the next group, and one fdatasync makes the whole group durable before any of it is answered.
import { open, rename, type FileHandle } from 'node:fs/promises';

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

export class ChangeLog {
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  private busy = false;
  private pausedFor: (() => Promise<void>) | null = null;
  /** Bytes appended to the current file. */
  bytes = 0;
  /** fdatasync calls so far (one per group of changes). */
  groups = 0;

  private constructor(
    private readonly path: string,
    private fh: FileHandle,
  ) {}

  static async open(path: string): Promise<ChangeLog> {
    const fh = await open(path, 'a');
    const log = new ChangeLog(path, fh);
    log.bytes = (await fh.stat()).size;
    return log;
  }

  /** Resolves once `line` (no newline) is on disk. */
  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push(line + '\n');
      this.waiters.push({ resolve, reject });
      this.kick();
    });
  }

  /** Resolves when everything appended so far is durable. */
  drain(): Promise<void> {
    if (!this.busy && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.kick();
    });
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
          this.fh = await open(this.path, 'a');
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
    if (this.waiters.length === 0) return;
    const text = this.pending.join('');
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    this.busy = true;
    if (text.length > 0) this.groups++;
    const write = text.length > 0 ? this.fh.write(text).then(() => this.fh.datasync()) : Promise.resolve();
    write.then(
      () => {
        this.bytes += Buffer.byteLength(text);
        for (const w of waiters) w.resolve();
        this.done();
      },
      (err: Error) => {
        for (const w of waiters) w.reject(err);
        this.done();
      },
    );
  }

  private done(): void {
    this.busy = false;
    this.kick();
  }

  private fail(err: Error): void {
    for (const w of this.waiters) w.reject(err);
    this.waiters = [];
    this.pending = [];
    this.busy = false;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.fh.close();
  }
}
