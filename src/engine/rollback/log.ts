// The rollback's own log, `<journal>.rollback.ndjson` (0600): one line per user whose undo was carried out and read
// back, so a rerun reports it as done before and tells it from a user the core never had. A torn last line (a crash
// mid-write) is left out, and cut off before the next append, as the run's journal does (journal.ts); a damaged line
// with lines after it is refused with its line number. Never a raw parse error. Write-ahead: before a user's first
// removal request, `{"user", "intent": "remove"|"undo"}` is written and synced, so a rerun after a kill counts a
// user it then finds gone as removed by this rollback, not as "gone already".
// Invariant: a user's intent line is on the disk before its first removal request, and a done line only after every
// action was read back.
import { existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { UserError } from '../../errors.js';
import { openPrivate, writeWhole } from '../../files/private.js';

export interface RollbackLogEntry {
  user: string;
  /** `removed`: the user the run created is gone; `undone`: what the run added to a present user is off. */
  done: 'removed' | 'undone';
  at: string;
}

export interface LoadedLog {
  /** Users whose undo is done. */
  done: Map<string, RollbackLogEntry['done']>;
  /** Users whose undo was begun (its intent synced) and not logged done: what the core no longer holds was ours. */
  intended: Set<string>;
  /** Bytes up to the end of the last whole line (a torn tail starts there). */
  wholeBytes: number;
  size: number;
}

export async function readRollbackLog(path: string): Promise<LoadedLog> {
  const done = new Map<string, RollbackLogEntry['done']>();
  const intended = new Set<string>();
  if (!existsSync(path)) return { done, intended, wholeBytes: 0, size: 0 };
  const buf = await readFile(path);
  // Lines with the byte offset each starts at; the last one may lack its newline.
  const lines: Array<{ text: string; start: number }> = [];
  for (let at = 0; at < buf.length;) {
    const nl = buf.indexOf(0x0a, at);
    const end = nl < 0 ? buf.length : nl;
    lines.push({ text: buf.subarray(at, end).toString('utf8'), start: at });
    at = end + 1;
  }
  const filled = lines.filter((l) => l.text.trim() !== '');
  const last = filled[filled.length - 1];
  let wholeBytes = buf.length > 0 && buf[buf.length - 1] !== 0x0a ? (last?.start ?? 0) : buf.length;
  for (const line of filled) {
    let entry: Partial<RollbackLogEntry> & { key?: string; intent?: string };
    try {
      entry = JSON.parse(line.text) as typeof entry;
      if (line === last && buf[buf.length - 1] !== 0x0a) continue; // whole, but its newline never came: written again
    } catch {
      if (line === last) {
        wholeBytes = line.start; // torn by a crash mid-write: its user is read from the core again
        continue;
      }
      const lineNo = lines.indexOf(line) + 1;
      throw new UserError(
        `${path}:${lineNo} is damaged and is not the last line: something other than auth-migrate changed the rollback's log. ` +
          'Look at that line, or move the file away: the rollback reads the core again and redoes nothing already gone.',
      );
    }
    // Lines of older versions (`{"key": ...}`, one per action) say nothing about a whole user: the core is read again.
    if (typeof entry?.user === 'string' && (entry.done === 'removed' || entry.done === 'undone')) {
      done.set(entry.user, entry.done);
      intended.delete(entry.user);
    } else if (typeof entry?.user === 'string' && (entry.intent === 'remove' || entry.intent === 'undo')) intended.add(entry.user);
  }
  return { done, intended, wholeBytes, size: buf.length };
}

export interface RollbackLog {
  readonly path: string;
  append(entry: Omit<RollbackLogEntry, 'at'>): Promise<void>;
  /** Write-ahead: the user's undo begins; resolves once the line is synced (the users of one turn share a sync). */
  intend(user: string, what: 'remove' | 'undo'): Promise<void>;
  close(): Promise<void>;
}

/** Open the log for appending, after cutting off a torn last line (its user is simply read again). */
export async function openRollbackLog(path: string, loaded: LoadedLog): Promise<RollbackLog> {
  if (loaded.wholeBytes < loaded.size) {
    const fh = await open(path, 'r+');
    try {
      await fh.truncate(loaded.wholeBytes);
    } finally {
      await fh.close();
    }
  }
  const fh = await openPrivate(path, 'a');
  let writing: Promise<unknown> = Promise.resolve();
  let syncing: Promise<void> | undefined;
  return {
    path,
    append(entry) {
      const line = JSON.stringify({ ...entry, at: new Date().toISOString() }) + '\n';
      writing = writing.then(() => writeWhole(fh, line));
      return writing.then(() => undefined);
    },
    intend(user, what) {
      const line = JSON.stringify({ user, intent: what, at: new Date().toISOString() }) + '\n';
      writing = writing.then(() => writeWhole(fh, line));
      // One sync for the intents written in this turn of the event loop.
      return (syncing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        syncing = undefined;
        const upTo = writing;
        return upTo.then(() => fh.datasync());
      }));
    },
    async close() {
      await writing.catch(() => undefined);
      await fh.sync().catch(() => undefined);
      await fh.close();
    },
  };
}
