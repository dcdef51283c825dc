// File errors an operator can fix, in one place (issue 31, item 7): a write refused (EACCES, EPERM, EROFS), a file
// size limit (EFBIG), a full disk or quota (ENOSPC, EDQUOT), a path that is a folder or under a file (EISDIR,
// ENOTDIR). Each becomes one line naming the path and the fix, exit 2, wherever it happens: a write awaited by a
// command reaches the CLI's catch (cli.ts), a write in a timer or a stream's event reaches the process guard
// (exitOnFileErrors, installed by bin/auth-migrate.js). Written lines are never rewritten, so whatever the journal
// holds stays as it was: at most its last line is torn, which the next run reads past and cuts off.
import { dirname } from 'node:path';
import { UserError } from '../errors.js';

const FIXES: Record<string, (path: string) => string> = {
  EACCES: (p) => `permission denied (EACCES): let the user running auth-migrate write to ${dirname(p)}, or choose another folder`,
  EPERM: (p) => `operation not permitted (EPERM): the file or ${dirname(p)} may be immutable or read-only; choose another folder`,
  EROFS: () => `read-only file system (EROFS): choose a folder on a writable disk`,
  EFBIG: () => `file too large (EFBIG): the file size limit (ulimit -f) was reached; raise it, or split the run with --limit/--skip`,
  ENOSPC: (p) => `no space left on the device (ENOSPC): free space on the disk holding ${dirname(p)}, or choose another folder`,
  EDQUOT: (p) => `disk quota exceeded (EDQUOT): free space in your quota on the disk holding ${dirname(p)}, or choose another folder`,
  EISDIR: () => `it is a folder (EISDIR): remove it or choose another path`,
  ENOTDIR: () => `a part of the path is not a folder (ENOTDIR): choose another path`,
};

/** A file error of the kinds above (a Node errno error with a path, or one raised while writing a known path). */
export function isFileError(err: unknown): err is NodeJS.ErrnoException {
  const e = err as NodeJS.ErrnoException | undefined;
  return typeof e === 'object' && e !== null && typeof e.code === 'string' && e.code in FIXES;
}

/**
 * The operator's line for a file error: the path and the fix. `path` is the file being written when the error
 * itself names none (a write on an open handle: the kernel knows the descriptor, not the name).
 */
export const RERUN = 'the journal keeps what was done: once fixed, run the same command again to resume';

export function fileErrorMessage(err: NodeJS.ErrnoException, path?: string, after = RERUN): string {
  const p = err.path ?? path ?? '(a file auth-migrate writes)';
  const destPath = (err as { dest?: unknown }).dest;
  const dest = typeof destPath === 'string' ? ` (to ${destPath})` : '';
  return `cannot write ${p}${dest}: ${FIXES[err.code!]!(p)}. ${after}`;
}

/** The error as a UserError (exit 2) when it is a file error; any other error as it is. */
export function asFileError(err: unknown, path?: string): unknown {
  return isFileError(err) ? new UserError(fileErrorMessage(err, path), 2) : err;
}

/** Run a write and name its path in the error: `await writing(path, () => fh.write(...))`. */
export async function writing<T>(path: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw asFileError(err, path);
  }
}

/**
 * A file error no caller awaited (a journal's timed flush, a stream's 'error' event) ends the process with its
 * one line and exit 2, as the CLI's catch does (a UserError too), instead of an uncaught stack trace. Any other
 * error ends it as Node would: its stack, exit 1. Installed once by the command line (bin/auth-migrate.js), never in a library.
 */
export function exitOnFileErrors(stderr: { write(s: string): unknown } = process.stderr): void {
  const onError = (err: unknown) => {
    const line = err instanceof UserError ? err.message : isFileError(err) ? fileErrorMessage(err) : undefined;
    if (line === undefined) {
      // What Node does without a handler: the stack, exit 1.
      stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    }
    tellFileError(stderr, line);
    process.exit(2);
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
}

/** The outputs a file error was told on (in a process, the command line's one stderr). */
const told = new WeakSet<object>();

/**
 * The one line of a file error. A disk that is full fails every file a command writes (the journal, then the
 * report as it closes): the operator reads the first, once; the others add nothing but noise.
 */
export function tellFileError(stderr: { write(s: string): unknown }, line: string): void {
  if (told.has(stderr)) return;
  told.add(stderr);
  stderr.write(`auth-migrate: ${line}\n`);
}
