// Files that hold password hashes, secrets or keys (journals, reports, failures files, the sandbox store and its
// log, lock files): created 0600 and never written through a symbolic link. A link planted at the path makes the
// open fail (O_NOFOLLOW), so its target is neither overwritten nor re-permissioned. Every output file goes through
// here (docs/migration.md, "Files written").
import { constants, fchmodSync, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { UserError } from '../errors.js';

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
  await fh.chmod(PRIVATE_MODE);
  return fh;
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
