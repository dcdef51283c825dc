// An undo retires the journal of the run it undoes: once a rollback starts removing, the journal no longer says
// what the core holds, so no run may carry on from it. It is renamed `<journal>.rolled-back` (then `-2`, `-3`...
// after later runs at the same path), its rollback log with it: the next run of the same migration
// starts afresh (a new run folder, or a new journal at an explicit --journal path), and the same rollback command
// finds the retired journal to go on with.
// Invariant: a journal an undo began on is renamed before the first removal, so no run carries on from it.
import { existsSync } from 'node:fs';
import { readdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { journalRunId } from '../journal/lines.js';

export const logPathOf = (journal: string): string => `${journal}.rollback.ndjson`;

const RETIRED = /\.rolled-back(?:-\d+)?$/;

export const isRetired = (path: string): boolean => RETIRED.test(path);

/** The path the run wrote, from a retired journal's path (itself otherwise). */
export function liveJournalOf(path: string): string {
  return path.replace(RETIRED, '');
}

function retiredName(live: string, n: number): string {
  return `${live}.rolled-back${n > 1 ? `-${n}` : ''}`;
}

/** The newest retired journal of `live`, if any. */
export function newestRetired(live: string): string | undefined {
  let found: string | undefined;
  for (let n = 1; existsSync(retiredName(live, n)); n++) found = retiredName(live, n);
  return found;
}

/** The journal a rollback of `given` works on: the live one, else its newest retired one (a rollback going on). */
export function locateJournal(given: string): { journal: string; live: string } | undefined {
  if (isRetired(given)) return existsSync(given) ? { journal: given, live: liveJournalOf(given) } : undefined;
  if (existsSync(given)) return { journal: given, live: given };
  const retired = newestRetired(given);
  return retired ? { journal: retired, live: given } : undefined;
}

/** Rename the live journal (and its rollback log) to the next retired name; returns that name. */
export async function retireJournal(live: string): Promise<string> {
  let n = 1;
  while (existsSync(retiredName(live, n))) n++;
  const to = retiredName(live, n);
  await rename(live, to);
  await moveLog(live, to);
  return to;
}

/** A crash between the two renames of retireJournal leaves the log at the live name: moved on the next start. */
export async function moveLog(from: string, to: string): Promise<void> {
  if (existsSync(logPathOf(from)) && !existsSync(logPathOf(to))) await rename(logPathOf(from), logPathOf(to));
}

/** Newest retired run-folder journal (`<folder>/journal.ndjson.rolled-back*`) under `dir` whose run is `id`. */
export async function findRetiredRunJournal(dir: string, id: string): Promise<string | undefined> {
  let best: { path: string; mtime: number } | undefined;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    for (const name of await readdir(join(dir, e.name)).catch(() => [] as string[])) {
      if (!/^journal\.ndjson\.rolled-back(?:-\d+)?$/.test(name)) continue;
      const path = join(dir, e.name, name);
      if ((await journalRunId(path)) !== id) continue;
      const mtime = (await stat(path)).mtimeMs;
      if (!best || mtime > best.mtime) best = { path, mtime };
    }
  }
  return best?.path;
}
