// Which earlier run a `run --sync` brings up to date (its base), and whether the sync carries on from one of its
// own that stopped: found as `run` finds its run folder (the newest run folder under --out, or the current folder,
// whose journal is of this target), or named with --from-journal. A sync's journal names its base in its header,
// so the runs of one migration form a chain: the first run, then each sync.
// Invariant: the base found is a run of this target (its journal says so); else it is the journal named with --from-
// journal.
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from '../../errors.js';
import type { JournalEntry, RunIdentity } from '../journal/journal.js';
import { FOLDER_JOURNAL } from '../run-folder.js';

/** A source file of the earlier run, as the sync found it: rollback restores removed devices and logins from it. */
export interface PreviousFile {
  path: string;
  /** sha256 (hex) of the file when the sync ran; absent when the file was gone then. */
  sha256?: string;
  bytes?: number;
}

/** What a sync journal's run header says under "sync". */
export interface SyncHeader {
  /** Absolute path of the journal this sync brought up to date. */
  base: string;
  /** The base's first run header (`<id>@<startedAt>`), so a replaced file is not taken for it. */
  baseRun: string;
  /** The base run's sources, with their checksums (docs/migration.md, "Rolling back a sync"). */
  previous: PreviousFile[];
  /** How the files are read (format, provider map, hash parameters without the signer key): a rollback reads them. */
  read?: { format?: string; providerMap?: Record<string, string>; hashConfig?: Record<string, unknown> };
  /** The plan settings the sync ran with (a rollback re-imports a removed user with them). */
  plan?: { keepSourceIds?: boolean; disabled?: unknown; scryptAlgorithmName?: string };
}

export interface JournalHead {
  path: string;
  identity: RunIdentity;
  /** `<id>@<startedAt>` of its first run header. */
  run: string;
  fpKey?: string;
  sync?: SyncHeader;
  /** How its last run ended: finished, stopped, fatal; undefined when it never wrote an end (killed, or running). */
  ended?: 'finished' | 'stopped' | 'fatal';
  mtimeMs: number;
}

/** The first line of a journal (its run header) and the end of its last run, or undefined when it is not a journal. */
export async function readJournalHead(path: string): Promise<JournalHead | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size, mtimeMs } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    await fh.read(head, 0, head.length, 0);
    const first = JSON.parse(head.toString('utf8').split('\n', 1)[0] ?? '') as Extract<JournalEntry, { type: 'run' }>;
    if (first.type !== 'run' || !first.identity) return undefined;
    const tail = Buffer.alloc(Math.min(size, 4096));
    await fh.read(tail, 0, tail.length, size - tail.length);
    const last = tail.toString('utf8').trimEnd().split('\n').pop() ?? '';
    let ended: JournalHead['ended'];
    try {
      const entry = JSON.parse(last) as { type?: string; reason?: JournalHead['ended'] };
      if (entry.type === 'end') ended = entry.reason;
    } catch {
      // a torn last line: the run was killed
    }
    const sync = first.sync as SyncHeader | undefined;
    return {
      path,
      identity: first.identity,
      run: `${first.id}@${first.startedAt}`,
      ...(first.fpKey ? { fpKey: first.fpKey } : {}),
      ...(sync && typeof sync.base === 'string' ? { sync } : {}),
      ended,
      mtimeMs,
    };
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}

/** The journals of run folders under `dir` that wrote into `target`, newest first. */
async function journalsOfTarget(dir: string, target: string): Promise<JournalHead[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: JournalHead[] = [];
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const head = await readJournalHead(join(dir, e.name, FOLDER_JOURNAL));
    if (head && head.identity.target === target) out.push(head);
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

export interface SyncChoice {
  /** The journal this sync brings up to date. */
  base: JournalHead;
  /** A sync of these same files that stopped before the end: carried on (its journal is this sync's). */
  resume?: JournalHead;
}

const sameSources = (a: RunIdentity, b: string[]): boolean => a.sources.length === b.length && a.sources.every((s, i) => s === b[i]);

/**
 * The base of a sync of `sources` into `target`: `fromJournal` when given, else the newest journal of this target
 * under `out`. When that newest journal is a sync of the same files that did not finish, the sync carries on in it.
 */
export async function chooseSyncBase(o: {
  fromJournal?: string;
  out?: string;
  cwd: string;
  target: string;
  sources: string[];
}): Promise<SyncChoice> {
  const dir = resolve(o.cwd, o.out ?? '.');
  if (o.fromJournal !== undefined) {
    const path = resolve(o.cwd, o.fromJournal);
    const base = await readJournalHead(path);
    if (!base)
      throw new UserError(
        `--from-journal ${o.fromJournal} is not an auth-migrate journal (no run header): give the journal of the earlier run`,
      );
    if (base.identity.target !== o.target) {
      throw new UserError(
        `--from-journal ${o.fromJournal} is the journal of a run into ${base.identity.target}, not ${o.target}: a sync brings the same core up to date`,
      );
    }
    const newest = (await journalsOfTarget(dir, o.target))[0];
    const resume =
      newest?.sync?.base === base.path && sameSources(newest.identity, o.sources) && newest.ended !== 'finished' ? newest : undefined;
    return resume ? { base, resume } : { base };
  }
  const found = await journalsOfTarget(dir, o.target);
  const newest = found[0];
  if (!newest) {
    throw new UserError(
      `no earlier run into ${o.target} was found under ${dir} (a run folder whose journal is of this target): ` +
        'a sync brings up to date what a run migrated. Give its journal with --from-journal FILE, its folder with --out DIR, or run without --sync first.',
    );
  }
  if (newest.sync && sameSources(newest.identity, o.sources) && newest.ended !== 'finished') {
    const base = await readJournalHead(newest.sync.base);
    if (!base)
      throw new UserError(
        `the sync ${newest.path} carries on from ${newest.sync.base}, which is gone: put it back, or give --from-journal`,
      );
    return { base, resume: newest };
  }
  return { base: newest };
}

/**
 * `verify` after a sync: the newest sync journal under `out` of these same files into `target` (a sync's run
 * identity names its base as well, so the run folder of a plain run of these files is not it).
 */
export async function findSyncJournal(out: string, target: string, sources: string[]): Promise<JournalHead | undefined> {
  return (await journalsOfTarget(out, target)).find((h) => h.sync !== undefined && sameSources(h.identity, sources));
}

/** The chain from the first run to `head`, oldest first, each link checked to be the journal its sync named. */
export async function journalChain(head: JournalHead): Promise<JournalHead[]> {
  const chain = [head];
  for (let at = head; at.sync;) {
    if (chain.length > 1000) throw new UserError(`the journals from ${head.path} back to the first run form a loop`);
    const base = await readJournalHead(at.sync.base);
    if (!base || base.run !== at.sync.baseRun) {
      throw new UserError(
        `the sync ${at.path} was made on ${at.sync.base}, which is ${base ? 'another journal now' : 'gone'}: put the earlier run's journal back there (a sync reads the whole chain of runs)`,
      );
    }
    chain.unshift(base);
    at = base;
  }
  return chain;
}

/** sha256 and size of a file, or undefined when it cannot be read (rollback then says what it cannot restore). */
export async function checksum(path: string): Promise<{ sha256: string; bytes: number } | undefined> {
  const { createHash } = await import('node:crypto');
  const { createReadStream } = await import('node:fs');
  try {
    const bytes = (await stat(path)).size;
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return { sha256: hash.digest('hex'), bytes };
  } catch {
    return undefined;
  }
}

/**
 * Syncs made on `journal` that are not rolled back (their journal is still live), looked for where syncs are made:
 * run folders beside the journal's own folder, and journals beside it (an explicit --journal). An earlier run
 * cannot be rolled back under them: its undo would not see what they changed or re-imported.
 */
export async function liveSyncsOn(journal: string): Promise<string[]> {
  const path = resolve(journal);
  const head = await readJournalHead(path);
  if (!head) return [];
  const folder = dirname(path);
  const candidates = new Set<string>();
  // A run folder's journal: the syncs' run folders are its siblings; any journal: beside it, or in folders under it.
  const dirs = basename(path) === FOLDER_JOURNAL ? [folder, dirname(folder)] : [folder];
  for (const dir of dirs) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isDirectory()) candidates.add(join(dir, e.name, FOLDER_JOURNAL));
      else if (dir === folder && e.isFile() && e.name.endsWith('.ndjson') && !e.name.endsWith('.rollback.ndjson'))
        candidates.add(join(dir, e.name));
    }
  }
  candidates.delete(path);
  const out: string[] = [];
  for (const c of candidates) {
    const h = await readJournalHead(c);
    if (h?.sync && resolve(h.sync.base) === path && h.sync.baseRun === head.run) out.push(c);
  }
  return out.sort();
}
