// Exclusive locks on a file another process must not use at the same time (the sandbox store, a run's journal):
// `<path>.lock` created exclusively, holding who took it. A second taker is refused, naming the holder; a lock
// whose process is gone (same host, pid no longer alive: a crash or SIGKILL) is stale and taken over.
import { hostname } from 'node:os';
import { readFile, unlink } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';
import { UserError } from '../errors.js';
import { openPrivate } from './private.js';

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  /** What holds it, e.g. `auth-migrate core` or `auth-migrate run`. */
  by: string;
}

export interface FileLock {
  readonly path: string;
  release(): Promise<void>;
}

export const lockPathOf = (path: string): string => `${path}.lock`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(lockPath: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await readFile(lockPath, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

/**
 * Take the lock of `path` for `by`. `what` names the thing in the refusal ("the sandbox store", "the journal").
 * Throws a UserError (exit 2) naming the holder when another live process has it.
 */
export async function acquireLock(path: string, what: string, by: string): Promise<FileLock> {
  const lockPath = lockPathOf(path);
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), by };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await openPrivate(lockPath, 'x');
      await fh.writeFile(JSON.stringify(me) + '\n');
      await fh.close();
      const onExit = () => {
        try {
          unlinkSync(lockPath);
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
          await unlink(lockPath).catch(() => undefined);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = await readHolder(lockPath);
      const stale = holder !== undefined && holder.host === me.host && holder.pid !== process.pid && !alive(holder.pid);
      if (stale || holder === undefined) {
        // A crashed holder (or a lock file torn while being written): take it over.
        await unlink(lockPath).catch(() => undefined);
        continue;
      }
      throw new UserError(
        `${what} ${path} is in use by ${holder.by} (pid ${holder.pid} on ${holder.host}, since ${holder.since}); ` +
          `two at once would lose or duplicate writes. Stop that one first, or use another path. ` +
          `If it is surely gone, delete ${lockPath}.`,
      );
    }
  }
  throw new UserError(`could not take the lock ${lockPath}; delete it if no other auth-migrate uses ${path}`);
}
