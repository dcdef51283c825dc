// Progress of migration at first sign-in, read from the core: for each user of a run's sign-in migration file,
// whether its legacy entry still waits (per algorithm, and since when), or how it ended (signed in, a password set
// by reset or change, expired). `expireWaiting` ends the window: the entries left are removed (read back) and the
// users listed. Used by `auth-migrate signin-status` and the wizard's results screen; no hash leaves this module.
import { readFile } from 'node:fs/promises';
import type { CoreClient } from '../core-client/types.js';
import { endingUpdate, LEGACY_ENTRY_KEY, readLegacyDone, readLegacyEntry, type LegacyEndedVia } from 'auth-migrate-signin/protocol';

/** The ids of one line of the sign-in migration file (its hash is never kept). */
export interface SignInFileUser {
  sourceId: string;
  email?: string;
  userId?: string;
  algorithm: string;
}

export interface AlgorithmStatus {
  waiting: number;
  /** The earliest `since` of the waiting entries (epoch ms). */
  waitingSince?: number;
  ended: Record<LegacyEndedVia, number>;
}

export interface WaitingUser extends SignInFileUser {
  userId: string;
  since: number;
}

export interface SignInStatus {
  /** Lines of the file. */
  users: number;
  waiting: number;
  ended: Record<LegacyEndedVia, number>;
  /** Created by the run without an entry (the login was there before: it keeps its own password) or not created. */
  noEntry: number;
  /** An entry the sign-in part ignores (not of the run's format: written by hand, or by a version without MACs). */
  invalid: number;
  byAlgorithm: Record<string, AlgorithmStatus>;
  /** The waiting users (ids only), for --expire and --json. */
  waitingUsers: WaitingUser[];
}

const noEnds = (): Record<LegacyEndedVia, number> => ({ 'sign-in': 0, 'password-set': 0, expired: 0, sync: 0 });

/** The users of a sign-in migration file: ids and algorithm of each line; lines that are not JSON are refused. */
export async function readSignInFile(path: string): Promise<SignInFileUser[]> {
  const text = await readFile(path, 'utf8');
  const out: SignInFileUser[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // The position only: the line holds a hash.
      throw new Error(`${path} line ${i + 1} is not JSON`);
    }
    if (typeof o.sourceId !== 'string' || typeof o.algorithm !== 'string')
      throw new Error(`${path} line ${i + 1} lacks sourceId or algorithm`);
    const u: SignInFileUser = { sourceId: o.sourceId, algorithm: o.algorithm };
    if (typeof o.email === 'string') u.email = o.email;
    if (typeof o.userId === 'string') u.userId = o.userId;
    out.push(u);
  });
  return out;
}

async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function signInStatus(core: CoreClient, users: SignInFileUser[], concurrency = 8): Promise<SignInStatus> {
  const status: SignInStatus = {
    users: users.length,
    waiting: 0,
    ended: noEnds(),
    noEntry: 0,
    invalid: 0,
    byAlgorithm: {},
    waitingUsers: [],
  };
  const algo = (name: string): AlgorithmStatus => (status.byAlgorithm[name] ??= { waiting: 0, ended: noEnds() });
  await eachLimited(users, concurrency, async (u) => {
    if (u.userId === undefined) {
      status.noEntry += 1;
      return;
    }
    const metadata = (await core.getUserMetadata(u.userId)).metadata;
    const shape = readLegacyEntry(metadata);
    const entry = shape && 'entry' in shape ? shape.entry : undefined;
    const done = readLegacyDone(metadata);
    if (shape && !entry) status.invalid += 1;
    else if (entry) {
      const a = algo(entry.algorithm);
      status.waiting += 1;
      a.waiting += 1;
      a.waitingSince = Math.min(a.waitingSince ?? entry.since, entry.since);
      status.waitingUsers.push({ ...u, userId: u.userId, algorithm: entry.algorithm, since: entry.since });
    } else if (done) {
      status.ended[done.via] = (status.ended[done.via] ?? 0) + 1;
      const a = algo(done.algorithm);
      a.ended[done.via] = (a.ended[done.via] ?? 0) + 1;
    } else status.noEntry += 1;
  });
  status.waitingUsers.sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  return status;
}

export interface ExpireResult {
  expired: WaitingUser[];
  /** Entries still there after the removal (read back): each a failure. */
  failed: WaitingUser[];
}

/** End the window: every waiting entry removed with an `expired` marker, each read back. */
export async function expireWaiting(core: CoreClient, waiting: WaitingUser[], concurrency = 8, now = Date.now()): Promise<ExpireResult> {
  const out: ExpireResult = { expired: [], failed: [] };
  await eachLimited(waiting, concurrency, async (u) => {
    const shape = readLegacyEntry((await core.getUserMetadata(u.userId)).metadata);
    if (shape && 'entry' in shape) await core.updateUserMetadata(u.userId, endingUpdate(shape.entry, 'expired', now));
    const after = (await core.getUserMetadata(u.userId)).metadata;
    (LEGACY_ENTRY_KEY in after ? out.failed : out.expired).push(u);
  });
  out.expired.sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  return out;
}
