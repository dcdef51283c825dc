// How journal entries become lines and are read back. Version 2 (issue 14) writes step and user lines without
// "type", a step's ids under its result (`"created": {...}` or `"already": {...}`), and a finished user's
// outcome on the line of its last step when both are written together. Version 1 lines, each with its "type",
// are still read, so journals written by earlier versions load and resume. A finished user's line may carry
// `"fp"`, its fingerprint (sync/fingerprint.ts: keyed digests, never a value), under the key `"fpKey"` of the
// run header; readers that do not know it ignore it, and lines without it still load. An `"intent"` line (the
// write-ahead record of a step about to be sent) carries the step key and `"who"`, the identity it will carry.
// Invariant: every line written is read back as the entry it was made from, and a version 1 line still reads.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { JournalEntry } from './journal.js';

type StepEntry = Extract<JournalEntry, { type: 'step' }>;
type UserEntry = Extract<JournalEntry, { type: 'user' }>;

export const JOURNAL_VERSION = 2;

export function encodeJournalEntry(entry: JournalEntry): string {
  if (entry.type === 'step') return JSON.stringify({ user: entry.user, step: entry.step, [entry.result]: entry.ids });
  if (entry.type === 'staged') return JSON.stringify({ user: entry.user, staged: entry.joined });
  if (entry.type === 'intent') return JSON.stringify({ user: entry.user, intent: entry.step, who: entry.who });
  if (entry.type === 'user') {
    const line: Record<string, string> = { user: entry.user, outcome: entry.outcome };
    if (entry.step !== undefined) line.step = entry.step;
    if (entry.status !== undefined) line.status = entry.status;
    if (entry.fp !== undefined) line.fp = entry.fp;
    return JSON.stringify(line);
  }
  return JSON.stringify(entry);
}

/** A step and, on the same line, its user's outcome (when the user finished with that step) and fingerprint. */
export function encodeFinishingStep(step: StepEntry, user: UserEntry): string {
  const line = { user: step.user, step: step.step, [step.result]: step.ids, outcome: user.outcome };
  return JSON.stringify(user.fp === undefined ? line : { ...line, fp: user.fp });
}

/** Whether `entry` may share the line of `step`, the entry written just before it. */
export function finishesOnStepLine(step: StepEntry, entry: JournalEntry): entry is UserEntry {
  return (
    entry.type === 'user' &&
    entry.user === step.user &&
    entry.step === undefined &&
    entry.status === undefined &&
    (entry.outcome === 'imported' || entry.outcome === 'alreadyPresent')
  );
}

/** The entries of one line, either version; throws on a line that is not a journal entry (a torn line). */
export function decodeJournalLine(line: string): JournalEntry[] {
  const o = JSON.parse(line) as Record<string, unknown> | null;
  if (o === null || typeof o !== 'object') throw new Error('not a journal entry');
  if (typeof o.type === 'string') return [o as unknown as JournalEntry];
  if (typeof o.user !== 'string') throw new Error('not a journal entry');
  const result = isIds(o.created) ? 'created' : isIds(o.already) ? 'already' : undefined;
  if (result !== undefined && typeof o.step === 'string') {
    const step: StepEntry = { type: 'step', user: o.user, step: o.step, result, ids: o[result] as Record<string, string> };
    if (typeof o.outcome !== 'string') return [step];
    const finished: UserEntry = { type: 'user', user: o.user, outcome: o.outcome as UserEntry['outcome'] };
    if (typeof o.fp === 'string') finished.fp = o.fp;
    return [step, finished];
  }
  if (typeof o.staged === 'number') return [{ type: 'staged', user: o.user, joined: o.staged }];
  if (typeof o.intent === 'string' && isIds(o.who))
    return [{ type: 'intent', user: o.user, step: o.intent, who: o.who as Record<string, string> }];
  if (typeof o.outcome === 'string') {
    const user: UserEntry = { type: 'user', user: o.user, outcome: o.outcome as UserEntry['outcome'] };
    if (typeof o.step === 'string') user.step = o.step;
    if (typeof o.status === 'string') user.status = o.status;
    if (typeof o.fp === 'string') user.fp = o.fp;
    return [user];
  }
  throw new Error('not a journal entry');
}

function isIds(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The entries of a journal file, in order. A torn last line (a crash mid-write) is left out: the step it described
 * is done again, or its answer never reached the journal. A damaged line with lines after it was written by
 * something else: `damaged(lineNumber)` is thrown, in the reader's words.
 */
export async function* readJournalEntries(path: string, damaged: (line: number) => Error): AsyncGenerator<JournalEntry> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  let torn: number | undefined;
  for await (const line of lines) {
    lineNo += 1;
    if (line.trim() === '') continue;
    if (torn !== undefined) throw damaged(torn);
    let entries: JournalEntry[];
    try {
      entries = decodeJournalLine(line);
    } catch {
      torn = lineNo;
      continue;
    }
    yield* entries;
  }
}

/** The run id on a journal's first line (its run entry); undefined when the file is missing or is not a journal. */
export async function journalRunId(path: string): Promise<string | undefined> {
  try {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const entry = JSON.parse(buf.subarray(0, bytesRead).toString('utf8').split('\n', 1)[0] ?? '') as { type?: string; id?: string };
      return entry.type === 'run' ? entry.id : undefined;
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}
