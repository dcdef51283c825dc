// `-` as a file name: the export comes from standard input. Readers look at a file more than once (detection,
// the Auth0 and Supabase joins, run's second pass), so the pipe is copied once, as it arrives, into a private
// temporary file (0600 in a 0700 folder, never through a link: it may hold hashes and secrets), removed when the
// process exits. Every reader opens files through input.ts, which swaps `-` for that copy.
import { mkdtempSync, rmSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UserError } from '../errors.js';
import { openPrivateSync } from '../files/private.js';

export const STDIN = '-';

let spooled: Promise<string> | undefined;

/** How messages name a source: `-` is "standard input". */
export function sourceName(path: string): string {
  return path === STDIN ? 'standard input (-)' : path;
}

/** The path to open for `path`: itself, or for `-` the private copy of standard input. */
export function physicalPath(path: string): Promise<string> {
  if (path !== STDIN) return Promise.resolve(path);
  spooled ??= spool(process.stdin);
  return spooled;
}

async function spool(input: NodeJS.ReadStream): Promise<string> {
  if (input.isTTY) {
    throw new UserError(
      '`-` reads the export from standard input, but standard input is a terminal; pipe the export in (e.g. `gunzip -c users.json.gz | auth-migrate validate -`)',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'auth-migrate-stdin-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'export');
  const fd = openPrivateSync(path, 'x');
  try {
    await pipeline(input, createWriteStream(path, { fd }));
  } catch (err) {
    throw new UserError(`standard input (-) could not be read to the end (${(err as Error).message})`);
  }
  return path;
}

/** `-` once at most: the second would read the same records again. */
export function checkStdinOnce(paths: string[]): void {
  if (paths.filter((p) => p === STDIN).length > 1) {
    throw new UserError('`-` (standard input) is given more than once; a pipe can be read only once, give it once');
  }
}
