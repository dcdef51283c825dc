// The run journal: JSON lines, one per intent, completed step or finished user, fsynced in batches (group commit).
// It holds ids only (recipe user ids, external ids, device names, emails, phone numbers): never a password, hash,
// code or secret. Invariant: a request that can create or change something in the core is sent only once an
// `intent` line naming it is on the disk (appendDurable), so a kill at any instant leaves a record that resume and
// rollback settle by reading the core.
//
// The lines (version 2, lines.ts), for whoever reads a journal (resume, rollback, verify):
//   {"type":"run", "version", "identity", "id", "startedAt"}        a run of this journal started
//   {"user", "intent": <step>, "who": {identity}}                   write-ahead: the step is about to be sent; its look-up
//                                                                    found nothing (so what the core then holds under that
//                                                                    identity is this migration's); fsynced BEFORE the request
//   {"user", "step", "created"|"already": {ids}}                    a step done (created by the run, or found there)
//   {"user", "step", "created"|"already": {ids}, "outcome"}          the same, and the user finished with it
//   {"user", "outcome", "step"?, "status"?}                          a user finished (imported, alreadyPresent,
//                                                                    failed at `step` with the core's `status`)
//   {"user", "staged": <ms>}                                         `--via bulk-staged` write-ahead: the user is in
//                                                                    an upload to the core's staging list, whose
//                                                                    first login method joins at <ms>; written and
//                                                                    fsynced BEFORE the upload
//   {"type":"end", "reason", "at"}                                   the run ended (finished, stopped, fatal)
// On `--via bulk-staged` (as on `--via bulk`) a user is settled by its `bulk-staged` step: `created` with
// `recipeUserId` (the id the core answers for the user: its external id where it has one, else the SuperTokens id)
// and the fingerprints of what the import gave it (rollback/shape.ts), once the run read it back in the core. A user
// whose last line is `staged` was in an upload when the run stopped: it may be in the core (imported by the core's
// job), still staged, or nowhere. The next run of the same command settles it: a user in the core whose login
// method joined at <ms> is counted as imported by this migration (a `created` line follows), any other is staged
// again or completed by the per-user steps. Rollback and verify should settle such users the same way (or ask for
// the rerun) rather than guess.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { acquireLock } from '../../files/lock.js';
import { openPrivate } from '../../files/private.js';
import { UserError } from '../../errors.js';
import { FinishedSteps, JournalUsers, type JournalUsersView } from './users.js';
import { newFingerprintKey } from '../sync/fingerprint.js';
import { JOURNAL_VERSION, readJournalEntries } from './lines.js';
import { journalWriter } from './writer.js';

export type { JournalUsersView } from './users.js';

export interface RunIdentity {
  /** Absolute paths of the source files, in the order given. */
  sources: string[];
  /** `http://host:port/base tenant=t app=a`, or `sandbox:<store path>`. */
  target: string;
  /** `run --sync`: the journal of the earlier run this one brings up to date (sync/base.ts). */
  base?: string;
}

export type StepResult = 'created' | 'already';
export type UserOutcome = 'imported' | 'alreadyPresent' | 'failed' | 'skipped';

export type JournalEntry =
  | {
      type: 'run';
      version: 1 | 2;
      identity: RunIdentity;
      id: string;
      startedAt: string;
      /** The key of the users' fingerprints (sync/fingerprint.ts); absent in journals written before them. */
      fpKey?: string;
      /** `run --sync`: what it needs to know of the earlier run (sync/base.ts). */
      sync?: Record<string, unknown>;
    }
  | { type: 'step'; user: string; step: string; result: StepResult; ids: Record<string, string> }
  /**
   * Write-ahead: `step` is about to be sent for `user`, carrying the identity `who` (email, phone, third-party id,
   * external id, device name, the user it acts on). Written after the step's look-up found nothing, so whatever the
   * core holds under that identity afterwards is this migration's until the step's own line says otherwise.
   */
  | { type: 'intent'; user: string; step: string; who: Record<string, string> }
  /** `fp`: a finished user's fingerprint under the run header's `fpKey` (keyed digests, never a value). */
  | { type: 'user'; user: string; outcome: UserOutcome; step?: string; status?: string; fp?: string }
  /** `--via bulk-staged` write-ahead: in an upload to the staging list, its first login method joining at `joined`. */
  | { type: 'staged'; user: string; joined: number }
  | { type: 'end'; reason: 'finished' | 'stopped' | 'fatal'; at: string };

export interface JournalledStep {
  result: StepResult;
  ids: Record<string, string>;
}

/** What the runner and verify read of a user's journalled steps. */
export interface JournalledSteps {
  get(key: string): JournalledStep | undefined;
  readonly size: number;
}

/** The recipe user ids a user's journalled steps produced, finished or not. */
export function journalledRecipeUserIds(steps: JournalledSteps): string[] {
  if (steps instanceof FinishedSteps) return steps.recipeUserIds();
  const ids: string[] = [];
  for (const step of (steps as Map<string, JournalledStep>).values())
    if (step.ids.recipeUserId !== undefined) ids.push(step.ids.recipeUserId);
  return ids;
}

export interface JournalledUser {
  steps: JournalledSteps;
  /** Last outcome recorded for the user (a failed user is retried by the next run). */
  outcome?: UserOutcome;
  /** `--via bulk-staged`: the join time of the last upload the user was in, unless settled since. */
  staged?: number;
  /** Steps whose intent is on the disk without the step's own line (sent, or about to be, when the run stopped). */
  intents?: Map<string, Record<string, string>>;
}

export function identityId(identity: RunIdentity): string {
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 12);
}

export function describeIdentity(identity: RunIdentity): string {
  return `${identity.sources.join(', ')} into ${identity.target}`;
}

/** Read a journal into per-user state; a torn last line (a crash mid-write) is ignored. */
export async function loadJournal(
  path: string,
  /** Users to add this journal's entries to (a chain of runs read oldest first: later entries win). */
  users: JournalUsers = new JournalUsers(),
): Promise<{ identity?: RunIdentity; users: JournalUsers; endsWithNewline: boolean; fpKey?: string }> {
  let identity: RunIdentity | undefined;
  let fpKey: string | undefined;
  let endsWithNewline = true;
  if (!existsSync(path)) return { users, endsWithNewline };
  // Only the last line can be torn by a crash; a damaged line with entries after it was written by something else.
  const damaged = (line: number) =>
    new UserError(
      `${path}:${line} is damaged (not a journal entry) and is not the last line: something other than auth-migrate ` +
        'changed this journal, so it cannot be trusted to resume. Look at that line; to start over, give a new --journal path ' +
        '(users already in the core are found and reported as already present).',
    );
  for await (const entry of readJournalEntries(path, damaged)) {
    if (entry.type === 'run') {
      identity ??= entry.identity;
      fpKey ??= entry.fpKey;
    } else if (entry.type === 'step') {
      users.step(entry.user, entry.step, { result: entry.result, ids: entry.ids });
    } else if (entry.type === 'staged') {
      users.staged(entry.user, entry.joined);
    } else if (entry.type === 'intent') {
      users.intent(entry.user, entry.step, entry.who);
    } else if (entry.type === 'user') {
      // A finished user is never run again from this journal: it is kept packed (users.ts), so that
      // the journal of millions of users fits in memory.
      users.outcome(entry.user, entry.outcome);
    }
  }
  endsWithNewline = await lastByteIsNewline(path);
  // A file with any line (blank ones too) but no run header is not a journal; an empty one is a new journal.
  if (!identity && (await stat(path)).size > 0)
    throw new UserError(`${path} is not an auth-migrate journal (no run header). Give another --journal path.`);
  return { identity, users, endsWithNewline, fpKey };
}

/** Cut the file after its last newline (the torn line a crash left); the step it described is done again. */
async function truncateTornTail(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const { bytesRead } = await fh.read(buf, 0, end - start, start);
      const nl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (nl >= 0) {
        await fh.truncate(start + nl + 1);
        return;
      }
      end = start;
    }
    await fh.truncate(0);
  } finally {
    await fh.close();
  }
}

async function lastByteIsNewline(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    if (size === 0) return true;
    const buf = Buffer.alloc(1);
    await fh.read(buf, 0, 1, size - 1);
    return buf[0] === 0x0a;
  } finally {
    await fh.close();
  }
}

export interface Journal {
  readonly path: string;
  readonly users: JournalUsersView;
  /** The key finished users' fingerprints are written under (the first run header's; sync/fingerprint.ts). */
  readonly fingerprintKey?: string;
  /** Queue an entry; it reaches the disk with the next group commit. */
  append(entry: JournalEntry): void;
  /**
   * Write-ahead: queue an entry and resolve once it (and everything queued before it) is written and fsynced. The
   * entries appended in the same turn of the event loop share one write and one sync. Rejects when the write fails
   * (the request it guards must then not be sent).
   */
  appendDurable(entry: JournalEntry): Promise<void>;
  /** Write and fsync everything queued. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenJournalOptions {
  /** Group-commit interval (default 200 ms). */
  intervalMs?: number;
  /** Flush early once this many entries wait (default 500), as soon as the appends of the current tick are done. */
  maxPending?: number;
  /** The fingerprint key of a new journal (a sync keeps its base's); default a fresh random one. */
  fingerprintKey?: string;
  /** `run --sync`: written in the run header (sync/base.ts). */
  sync?: Record<string, unknown>;
}

/** Open (or create) the journal of this run; refuses a journal written for another run identity. */
export async function openJournal(path: string, identity: RunIdentity, options: OpenJournalOptions = {}): Promise<Journal> {
  // One run per journal: a second one would duplicate imports and overwrite the report.
  const lock = await acquireLock(path, 'the journal', 'auth-migrate run');
  try {
    return await openLockedJournal(path, identity, options, lock.release);
  } catch (err) {
    await lock.release();
    throw err;
  }
}

async function openLockedJournal(
  path: string,
  identity: RunIdentity,
  options: OpenJournalOptions,
  release: () => Promise<void>,
): Promise<Journal> {
  const loaded = await loadJournal(path);
  if (loaded.identity && identityId(loaded.identity) !== identityId(identity)) {
    throw new UserError(
      `the journal ${path} belongs to another run (${describeIdentity(loaded.identity)}); this run is ` +
        `${describeIdentity(identity)}. Give this run its own --journal path, or delete that journal to start over.`,
    );
  }
  // A line torn by a crash is cut off, so that only a last line can ever be damaged (loadJournal relies on it).
  if (!loaded.endsWithNewline) await truncateTornTail(path);
  const handle: FileHandle = await openPrivate(path, 'a');
  const writer = journalWriter(handle, options.intervalMs ?? 200, options.maxPending ?? 500);
  // One key per journal: a resumed run keeps the one its first header gave (older journals get one from now on).
  const fingerprintKey = loaded.fpKey ?? options.fingerprintKey ?? newFingerprintKey();
  const journal: Journal = {
    path,
    users: loaded.users,
    fingerprintKey,
    append: writer.append,
    appendDurable: writer.appendDurable,
    flush: writer.flush,
    close: () => writer.close(release),
  };
  journal.append({
    type: 'run',
    version: JOURNAL_VERSION,
    identity,
    id: identityId(identity),
    startedAt: new Date().toISOString(),
    fpKey: fingerprintKey,
    ...(options.sync ? { sync: options.sync } : {}),
  });
  return journal;
}
