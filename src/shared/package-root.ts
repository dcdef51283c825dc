// Where the package is installed, from any of its modules: the sources (src/, under test), tsc's build (dist/) or
// the command line's bundle (dist/bin/ and its chunks), which sit at different depths. Invariant: the folder found
// holds the package.json named auth-migrate (the workspace's own packages have other names).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME = 'auth-migrate';
let found: string | undefined;

/** The package's folder. */
export function packageRoot(): string {
  if (found !== undefined) return found;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === NAME) return (found = dir);
    if (dirname(dir) === dir) throw new Error(`cannot find the ${NAME} package above ${fileURLToPath(import.meta.url)}`);
  }
}
