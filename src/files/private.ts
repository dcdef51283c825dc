// Files that hold password hashes, secrets or keys (journals, reports, failures files, the sandbox store and its
// log, lock files): created 0600 and never written through a symbolic link. A link planted at the path makes the
// open fail (O_NOFOLLOW), so its target is neither overwritten nor re-permissioned. Every output file goes through
// here (docs/migration.md, "Files written").
import { constants, createWriteStream, fchmodSync, openSync, type WriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { UserError } from '../errors.js';
import { asFileError } from './errors.js';

export const PRIVATE_MODE = 0o600;

const FLAGS = {
  /** Create or truncate. */
  w: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
  /** Create or append. */
  a: constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW,
  /** Create, failing when it exists (lock files). */
  x: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
} as const;

export type PrivateFlags = keyof typeof FLAGS;

/** An error of a write on an open file names no path: give it the file's (for its one line, files/errors.ts). */
function named(err: unknown, path: string): unknown {
  const e = err as NodeJS.ErrnoException | undefined;
  if (typeof e === 'object' && e !== null && typeof e.code === 'string' && e.path === undefined) e.path = path;
  return err;
}

/** The handle, its failing calls' errors naming `path` (a disk full, a size limit, on the journal or the store's log). */
function naming(fh: FileHandle, path: string): FileHandle {
  return new Proxy(fh, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        return out instanceof Promise ? out.catch((err: unknown) => Promise.reject(named(err, path))) : out;
      };
    },
  });
}

function refusal(path: string, err: NodeJS.ErrnoException): Error {
  if (err.code === 'ELOOP') {
    return new UserError(
      `refusing to write ${path}: it is a symbolic link (files holding hashes or secrets are never written through a link); remove it or choose another path`,
    );
  }
  return err;
}

/** Open for writing, mode 0600 (also when the file existed with another mode), never through a link. */
export async function openPrivate(path: string, flags: PrivateFlags): Promise<FileHandle> {
  let fh: FileHandle;
  try {
    fh = await open(path, FLAGS[flags], PRIVATE_MODE);
  } catch (err) {
    throw refusal(path, err as NodeJS.ErrnoException);
  }
  const handle = naming(fh, path);
  await handle.chmod(PRIVATE_MODE);
  return handle;
}

/** The synchronous form, for write streams (`createWriteStream(path, { fd })`). */
export function openPrivateSync(path: string, flags: PrivateFlags): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[flags], PRIVATE_MODE);
  } catch (err) {
    throw refusal(path, err as NodeJS.ErrnoException);
  }
  fchmodSync(fd, PRIVATE_MODE);
  return fd;
}

/**
 * A write stream on a private file. A write that fails (a full disk, a size limit) ends the command with one line
 * naming the file and the fix (files/errors.ts), as an awaited write would, instead of an unnamed stack trace.
 */
export function openPrivateStream(path: string, flags: PrivateFlags = 'w'): WriteStream {
  const stream = createWriteStream(path, { fd: openPrivateSync(path, flags) });
  stream.on('error', (err) => {
    // No caller awaits a stream's write: the error is thrown where the process guard (or the CLI) meets it.
    process.nextTick(() => {
      throw asFileError(named(err, path), path);
    });
  });
  return stream;
}

/**
 * Write all of `text` at the file's end: a write that meets a file size limit (or a nearly full disk) writes part
 * of it and says how much, without an error; the rest is written again, and that write then fails (EFBIG,
 * ENOSPC) instead of a torn line being taken as durable.
 */
export async function writeWhole(fh: FileHandle, text: string): Promise<void> {
  const buf = Buffer.from(text);
  for (let off = 0; off < buf.length;) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    if (bytesWritten <= 0) throw new Error('the file system accepted no byte of a write');
    off += bytesWritten;
  }
}
