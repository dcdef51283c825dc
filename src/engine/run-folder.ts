// Where a run's files live: by default one folder per run, named for the profile (or "run") and the UTC time
// it started, under the current folder or --out DIR, holding journal.ndjson, report.ndjson, failures.ndjson,
// resume.txt and verify's TOTP checks log. The same migration (same sources, same target) run again finds the
// newest folder whose journal is of that migration and carries on there; an explicit --journal wins.
// Invariant: a run carries on only in a folder whose journal is of the same sources and target.
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { identityId, type RunIdentity } from './journal/journal.js';
import { journalRunId } from './journal/lines.js';

/** The journal's name inside a run folder (report, failures and resume files sit beside it: report.ts). */
export const FOLDER_JOURNAL = 'journal.ndjson';

/** `night-2026-11-23T09-35-08Z`: the profile name made safe for a path, and the UTC time to the second. */
export function runFolderName(label: string | undefined, at: Date): string {
  const safe = (label ?? 'run').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+/, '') || 'run';
  const time = at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
  return `${safe}-${time}`;
}

/**
 * The journal an earlier run of this same migration left under `dir`: the hash-named file of older versions
 * (`auth-migrate-<id>.journal.ndjson`), else the newest run folder whose journal is of this identity.
 */
export async function findRunJournal(dir: string, identity: RunIdentity): Promise<string | undefined> {
  const id = identityId(identity);
  const legacy = join(dir, `auth-migrate-${id}.journal.ndjson`);
  if (existsSync(legacy)) return legacy;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  let best: { path: string; mtime: number } | undefined;
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const path = join(dir, e.name, FOLDER_JOURNAL);
    if ((await journalRunId(path)) !== id) continue;
    const mtime = (await stat(path)).mtimeMs;
    if (!best || mtime > best.mtime) best = { path, mtime };
  }
  return best?.path;
}

export interface RunJournalChoice {
  /** Absolute path of the journal. */
  journal: string;
  /** The run folder holding it, when the default layout is used (undefined for an explicit --journal). */
  folder?: string;
  /** True when an earlier run's journal was found (this run carries on from it). */
  found: boolean;
}

/**
 * Where this run's journal goes: `journal` when given (resolved against cwd); else the journal of an earlier run of
 * the same migration under `out` (default cwd); else a new folder there, named for `label` and `at` (not created yet:
 * `ensureRunFolder` makes it right before the first write).
 */
export async function chooseRunJournal(o: {
  journal?: string;
  out?: string;
  cwd: string;
  label?: string;
  identity: RunIdentity;
  at?: Date;
}): Promise<RunJournalChoice> {
  if (o.journal !== undefined) return { journal: resolve(o.cwd, o.journal), found: false };
  const out = resolve(o.cwd, o.out ?? '.');
  const earlier = await findRunJournal(out, o.identity);
  if (earlier) {
    const folder = basename(earlier) === FOLDER_JOURNAL ? dirname(earlier) : undefined;
    return { journal: earlier, ...(folder ? { folder } : {}), found: true };
  }
  const folder = newRunFolder(out, o.label, o.at ?? new Date());
  return { journal: join(folder, FOLDER_JOURNAL), folder, found: false };
}

/** A run folder under `out` that no run has yet: `runFolderName`, with `-2`, `-3`... when two start in one second. */
export function newRunFolder(out: string, label: string | undefined, at: Date): string {
  const name = runFolderName(label, at);
  let folder = join(out, name);
  for (let n = 2; existsSync(folder); n += 1) folder = join(out, `${name}-${n}`);
  return folder;
}

/** Make the folder a journal goes in (a run folder, or the folder of an explicit --journal), mode 0700 when new. */
export async function ensureRunFolder(journal: string): Promise<void> {
  await mkdir(dirname(journal), { recursive: true, mode: 0o700 });
}
