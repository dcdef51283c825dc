// Run folders hold emails and ids (report, journal) and, in some files, hashes. The default place is the current
// folder, often a git checkout: a new run folder inside a git work tree ignores itself (a `.gitignore` of `*`), so
// `git add .` never takes it, and the shells say so. Outside a work tree nothing changes.
// Invariant: a run folder made inside a git work tree is ignored by git from its first file.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** The top of the git work tree holding `dir` (a `.git` folder or file in it or a parent), if any. */
export function gitWorkTreeOf(dir: string): string | undefined {
  let at = resolve(dir);
  for (;;) {
    if (existsSync(join(at, '.git'))) return at;
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

/** Make a run folder the run just created ignore itself in git. */
export async function ignoreInGit(folder: string): Promise<void> {
  await writeFile(
    join(folder, '.gitignore'),
    '# auth-migrate: this run folder holds emails, ids and (in some files) password hashes; git ignores all of it.\n*\n',
    { mode: 0o600 },
  );
}
