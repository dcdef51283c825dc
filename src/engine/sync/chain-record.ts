// One history per migration: what a rollback of a sync re-imports (a user the sync removed, imported again under
// new ids) is written into the journal of the chain's first run, where both the next sync (chain.ts reads the
// chain's journals) and the full undo (the first run's rollback, rollback/made.ts) find it, as lines of the
// first run's own shape: per-user steps `created` with the new ids, or one `bulk`/`bulk-staged` line for a user
// the first run imported in one piece. An intent line goes first, so a rollback killed midway, run again, knows
// that the user it finds under that identity is the one it began to import; a closing line says it is whole.
// Invariant: the intent line is on the disk before the re-import, and a closing line says the user is whole.
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { acquireLock } from '../../files/lock.js';
import { openPrivate } from '../../files/private.js';
import type { JournalEntry } from '../journal/journal.js';
import { encodeJournalEntry } from '../journal/lines.js';

/** Where a re-imported user is recorded, and how far an earlier attempt of the same rollback got. */
export interface RestoreRecord {
  /** The first run's journal. */
  journal: string;
  /** The user (source id). */
  user: string;
  /** The sync's run (`<id>@<startedAt>`): the rollback's lines are `restore:<it>` (intent) and `restored:<it>` (whole). */
  syncRun: string;
  /** An earlier attempt wrote the intent: what it made is this rollback's. */
  begun: boolean;
  /** The first run imported the user in one piece: its new ids go in one line of that step. */
  bulk?: 'bulk' | 'bulk-staged';
}

export const restoreKeys = (syncRun: string): { intent: string; done: string } => ({
  intent: `restore:${syncRun}`,
  done: `restored:${syncRun}`,
});

/** A torn last line (its writer killed mid-line) is cut off, as a resumed run cuts it: its step is read from the core. */
async function cutTornTail(journal: string): Promise<void> {
  const fh = await open(journal, 'r+');
  try {
    const { size } = await fh.stat();
    const tail = Buffer.alloc(Math.min(size, 1 << 20));
    await fh.read(tail, 0, tail.length, size - tail.length);
    if (tail.length === 0 || tail[tail.length - 1] === 0x0a) return;
    const nl = tail.lastIndexOf(0x0a);
    await fh.truncate(nl < 0 ? size - tail.length : size - tail.length + nl + 1);
  } finally {
    await fh.close();
  }
}

/** Append whole lines to the journal, synced to disk, under its lock (a torn last line is cut off first). */
export function appendChainLines(journal: string, entries: JournalEntry[]): Promise<void> {
  if (entries.length === 0) return Promise.resolve();
  // One writer at a time in this process (the rollback's users run side by side); the file lock keeps others out.
  const turn = (queues.get(journal) ?? Promise.resolve()).then(() => appendLocked(journal, entries));
  const settled = turn.catch(() => undefined);
  queues.set(journal, settled);
  void settled.then(() => {
    if (queues.get(journal) === settled) queues.delete(journal);
  });
  return turn;
}

const queues = new Map<string, Promise<unknown>>();

async function appendLocked(journal: string, entries: JournalEntry[]): Promise<void> {
  const lock = await acquireLock(journal, 'the journal', 'a rollback of a sync recording what it re-imported');
  try {
    const text = entries.map((e) => encodeJournalEntry(e)).join('\n') + '\n';
    if (existsSync(journal)) await cutTornTail(journal);
    const fh = await openPrivate(journal, 'a');
    try {
      await fh.write(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
  } finally {
    await lock.release();
  }
}
