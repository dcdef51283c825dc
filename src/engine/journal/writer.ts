// The journal's writer: lines are appended in memory and written with one fsync per batch (group commit), on a timer,
// when the queue is full, or at once for a line someone waits for (appendDurable). Invariant: a line is on the disk
// whole or the writer is broken (every later flush rejects): after a failed write nothing more is written.
import type { FileHandle } from 'node:fs/promises';
import { writeWhole } from '../../files/private.js';
import type { JournalEntry } from './journal.js';
import { encodeFinishingStep, encodeJournalEntry, finishesOnStepLine } from './lines.js';

export interface JournalWriter {
  append(entry: JournalEntry): void;
  appendDurable(entry: JournalEntry): Promise<void>;
  flush(): Promise<void>;
  /** Flushes, then closes the file and calls `release` (the journal's lock), even when the last write failed. */
  close(release: () => Promise<void>): Promise<void>;
}

export function journalWriter(handle: FileHandle, intervalMs: number, maxPending: number): JournalWriter {
  let pending: string[] = [];
  /** The step on the last pending line: its user's outcome, if it comes next, shares that line. */
  let lastStep: Extract<JournalEntry, { type: 'step' }> | undefined;
  /** The write in progress (or the last one), and the one queued behind it that takes what is pending then. */
  let writing: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  /** A failed write leaves the file in doubt: nothing more is written, every later flush rejects with it. */
  let broken: unknown;
  let timer: NodeJS.Timeout | undefined;
  /** A flush at the end of the current burst of appends (a full queue, or entries someone waits for). */
  let soon: Promise<void> | undefined;
  let closed = false;

  // At most one write at a time and one queued behind it: appends made while a write and its sync are under way
  // go together in the next one (group commit), however many flushes were asked for meanwhile.
  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (broken !== undefined) return Promise.reject(broken);
    if (queued) return queued;
    const next = writing.then(async () => {
      queued = undefined;
      if (broken !== undefined) throw broken;
      settleStep();
      const batch = pending;
      pending = [];
      if (batch.length === 0) return;
      try {
        await writeBatch(handle, batch);
      } catch (err) {
        broken = err;
        throw err;
      }
    });
    queued = next;
    writing = next.catch(() => undefined);
    return next;
  };
  const flushSoon = (): Promise<void> =>
    (soon ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      soon = undefined;
      return flush();
    }));
  const push = (entry: JournalEntry): void => {
    if (closed) throw new Error('journal is closed');
    if (broken !== undefined) throw broken;
    // A step's line is encoded once it is known whether its user's outcome shares it (appended in the same tick as
    // the step, so it reaches the disk in the same write either way): one encoding a line, not two.
    if (lastStep && finishesOnStepLine(lastStep, entry)) {
      pending.push(encodeFinishingStep(lastStep, entry));
      lastStep = undefined;
      return;
    }
    settleStep();
    if (entry.type === 'step') lastStep = entry;
    else pending.push(encodeJournalEntry(entry));
  };
  /** The step line held for its user's outcome, encoded alone (a write is about to take the lines). */
  const settleStep = (): void => {
    if (lastStep) pending.push(encodeJournalEntry(lastStep));
    lastStep = undefined;
  };

  return {
    append(entry) {
      push(entry);
      if (pending.length >= maxPending) void flushSoon().catch(() => undefined);
      else timer ??= setTimeout(() => void flush().catch(() => undefined), intervalMs);
    },
    appendDurable(entry) {
      try {
        push(entry);
      } catch (err) {
        return Promise.reject(err);
      }
      return flushSoon();
    },
    flush,
    async close(release) {
      if (closed) return;
      try {
        await flush();
      } finally {
        // Even when the last write failed (disk full...): the handle must not be left to the garbage collector.
        closed = true;
        await handle.close();
        await release();
      }
    },
  };
}

/** Lines on the disk, whole or an error (at a file size limit a plain write stores part of a line and says nothing). */
async function writeBatch(handle: FileHandle, lines: string[]): Promise<void> {
  await writeWhole(handle, lines.join('\n') + '\n');
  await handle.datasync();
}
