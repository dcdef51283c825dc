// Exclusive locks on a file another process must not use at the same time (the sandbox store, a run's journal):
// `<path>.lock`, holding who took it. A second taker is refused, naming the holder; a lock whose process is gone
// (same host, pid no longer alive: a crash or SIGKILL) is stale and taken over.
//
// Exclusive under any interleaving of processes:
// - a lock file appears whole: its content is written to a private temporary file first, then hard-linked to
//   `<path>.lock`, which fails when the name exists (create-exclusive), so no taker ever sees it half-written;
// - a stale lock is never deleted: a taker first wins the right to replace that one generation of the lock
//   (the file `<path>.lock.<digest of its content>`, itself a lock taken the same way), checks that the lock
//   still holds that generation, and only then renames its own file over it. Two takers that both saw the same
//   stale lock cannot both win; a taker that saw it late finds another generation there and starts again.
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { link, readFile, rename, stat, unlink } from 'node:fs/promises';
import { readFileSync, unlinkSync } from 'node:fs';
import { UserError } from '../errors.js';
import { openPrivate } from './private.js';

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  /** What holds it, e.g. `auth-migrate core` or `auth-migrate run`. */
  by: string;
  /** Unique per taking (absent in locks written by older versions). */
  token?: string;
}

export interface FileLock {
  readonly path: string;
  release(): Promise<void>;
}

export const lockPathOf = (path: string): string => `${path}.lock`;

/** A lock file older versions left empty or torn is taken as being written for this long, then as stale. */
const UNREADABLE_GRACE_MS = 5_000;
/** Generations of takeover rights (a taker that died while replacing a stale lock, and so on) before giving up. */
const MAX_DEPTH = 3;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type Seen =
  | { kind: 'absent' }
  | { kind: 'holder'; holder: LockHolder; generation: string }
  | { kind: 'unreadable'; generation: string; ageMs: number };

async function look(lockPath: string): Promise<Seen> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, mtimeMs] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath).then((s) => s.mtimeMs)]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw err;
  }
  const generation = createHash('sha256').update(text).digest('hex').slice(0, 16);
  try {
    const holder = JSON.parse(text) as LockHolder;
    if (typeof holder.pid === 'number' && typeof holder.host === 'string') return { kind: 'holder', holder, generation };
  } catch {
    // torn or empty: below
  }
  return { kind: 'unreadable', generation, ageMs: Date.now() - mtimeMs };
}

const isStale = (h: LockHolder, me: LockHolder): boolean => h.host === me.host && h.pid !== me.pid && !alive(h.pid);

/** Write `me` to a private temporary file beside the lock (removed by the caller). */
async function writeTemp(lockPath: string, me: LockHolder): Promise<string> {
  const tmp = `${lockPath}.${me.token}.tmp`;
  const fh = await openPrivate(tmp, 'x');
  try {
    await fh.writeFile(JSON.stringify(me) + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

type Attempt = { held: true } | { held: false; holder?: LockHolder; lockPath: string };

/**
 * One try at `lockPath` for `me`, whose content is already in `tmp`: held, or refused (naming the live holder).
 * Loops only while the lock changes under it (released, replaced); each pass is bounded by the file system.
 */
async function take(lockPath: string, tmp: string, me: LockHolder, depth: number): Promise<Attempt> {
  for (let pass = 0; pass < 100; pass++) {
    try {
      await link(tmp, lockPath);
      return { held: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const seen = await look(lockPath);
    if (seen.kind === 'absent') continue; // released meanwhile
    if (seen.kind === 'holder' && !isStale(seen.holder, me)) return { held: false, holder: seen.holder, lockPath };
    if (seen.kind === 'unreadable' && seen.ageMs < UNREADABLE_GRACE_MS) {
      // An older version's lock still being written: wait for it briefly.
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    if (depth >= MAX_DEPTH) return { held: false, lockPath };
    // Stale: win the right to replace exactly this generation, then check it is still the one there.
    const right = `${lockPath}.${seen.generation}`;
    const rightTmp = await writeTemp(right, me);
    let claim: Attempt;
    try {
      claim = await take(right, rightTmp, me, depth + 1);
    } finally {
      await unlink(rightTmp).catch(() => undefined);
    }
    if (!claim.held) {
      // Another taker is replacing it (or one died doing so and its own right is held): that one wins.
      if (claim.holder) return claim;
      return { held: false, lockPath };
    }
    try {
      const now = await look(lockPath);
      if (now.kind !== 'absent' && now.generation === seen.generation) {
        await rename(tmp, lockPath);
        // The file is now the lock; a fresh temporary copy is not needed any more.
        return { held: true };
      }
    } finally {
      await unlink(right).catch(() => undefined);
    }
  }
  return { held: false, lockPath };
}

/**
 * Take the lock of `path` for `by`. `what` names the thing in the refusal ("the sandbox store", "the journal").
 * Throws a UserError (exit 2) naming the holder when another live process has it.
 */
export async function acquireLock(path: string, what: string, by: string): Promise<FileLock> {
  const lockPath = lockPathOf(path);
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), by, token: randomUUID() };
  const tmp = await writeTemp(lockPath, me);
  let attempt: Attempt;
  try {
    attempt = await take(lockPath, tmp, me, 0);
  } finally {
    // After a link the lock is a second name of the same file; after a rename the name is gone already.
    await unlink(tmp).catch(() => undefined);
  }
  if (!attempt.held) {
    const h = attempt.holder;
    if (h) {
      throw new UserError(
        `${what} ${path} is in use by ${h.by} (pid ${h.pid} on ${h.host}, since ${h.since}); ` +
          `two at once would lose or duplicate writes. Stop that one first, or use another path. ` +
          `If it is surely gone, delete ${attempt.lockPath}.`,
      );
    }
    throw new UserError(`could not take the lock ${attempt.lockPath}; delete it if no other auth-migrate uses ${path}`);
  }
  const mine = (text: string): boolean => {
    try {
      return (JSON.parse(text) as LockHolder).token === me.token;
    } catch {
      return false;
    }
  };
  const onExit = () => {
    try {
      if (mine(readFileSync(lockPath, 'utf8'))) unlinkSync(lockPath);
    } catch {
      // already released
    }
  };
  process.once('exit', onExit);
  let released = false;
  return {
    path: lockPath,
    async release() {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      // Only our own lock: never one another process holds now.
      const text = await readFile(lockPath, 'utf8').catch(() => '');
      if (mine(text)) await unlink(lockPath).catch(() => undefined);
    },
  };
}
