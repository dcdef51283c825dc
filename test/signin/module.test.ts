// The sign-in part an app installs: `auth-migrate/signin` resolves through package.json's exports to the built
// module, and nothing it imports, however deep, pulls the CLI, Ink or React: only the SDK (a peer dependency), the
// hash libraries and node built-ins (issue 21). Walks the built files' static and dynamic imports.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;

function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!));
      else
        packages.add(
          spec!.startsWith('node:')
            ? 'node:'
            : spec!
                .split('/')
                .slice(0, spec!.startsWith('@') ? 2 : 1)
                .join('/'),
        );
    }
  };
  visit(entry);
  return { files, packages };
}

describe('auth-migrate/signin', () => {
  it('resolves through the package exports to the built module, with its types', () => {
    const require = createRequire(`${REPO}/package.json`);
    const pkg = JSON.parse(readFileSync(`${REPO}/package.json`, 'utf8'));
    expect(pkg.exports['./signin']).toEqual({ types: './dist/signin/index.d.ts', default: './dist/signin/index.js' });
    expect(pkg.peerDependencies['supertokens-node']).toBeDefined();
    expect(pkg.peerDependenciesMeta['supertokens-node']).toEqual({ optional: true });
    expect(require.resolve('auth-migrate/signin')).toBe(`${REPO}/dist/signin/index.js`);
    expect(existsSync(`${REPO}/dist/signin/index.d.ts`)).toBe(true);
  });

  it('imports nothing of the CLI, Ink or React: only the SDK, the hash libraries and node built-ins', () => {
    const { files, packages } = importGraph(`${REPO}/dist/signin/index.js`);
    expect([...packages].sort()).toEqual(['bcryptjs', 'hash-wasm', 'node:', 'supertokens-node']);
    const inside = [...files].map((f) => f.slice(REPO.length + 1)).sort();
    expect(inside.filter((f) => !/^dist\/(signin|hashes)\//.test(f) && f !== 'dist/records/types.js')).toEqual([]);
    expect(inside).toContain('dist/signin/migrate.js');
  });

  it('loads in a plain Node process and exports the override, the Cognito verdict and the metadata filter', async () => {
    const mod = await import('auth-migrate/signin');
    expect(typeof mod.withLegacySignIn).toBe('function');
    expect(mod.cognitoVerdict(undefined, { name: 'NotAuthorizedException' })).toBe('WRONG_PASSWORD');
    expect(mod.withoutLegacyEntry({ plan: 'pro', [mod.LEGACY_ENTRY_KEY]: { hash: 'x' }, [mod.LEGACY_DONE_KEY]: {} })).toEqual({
      plan: 'pro',
    });
  });
});
