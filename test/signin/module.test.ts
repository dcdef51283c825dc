// The package an app installs, auth-migrate-signin (packages/signin, a workspace of this repository): its exports
// resolve for `import` and `require` to the built ESM and CommonJS files with their types, and nothing either
// build imports, however deep, is of the CLI: only the SDK (a peer dependency), the hash libraries and node
// built-ins; its ./protocol entry (what the CLI uses) not even the SDK. Walks the built files' imports.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PKG = `${REPO}/packages/signin`;
const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+|require\(\s*)['"]([^'"]+)['"]/g;

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

describe('auth-migrate-signin', () => {
  const pkg = JSON.parse(readFileSync(`${PKG}/package.json`, 'utf8'));

  it('is a workspace of the repository, the CLI depends on it, and the SDK is its peer', () => {
    const root = JSON.parse(readFileSync(`${REPO}/package.json`, 'utf8'));
    expect(root.workspaces).toEqual(['packages/*']);
    expect(root.dependencies['auth-migrate-signin']).toBe(pkg.version);
    expect(root.exports['./signin']).toBeUndefined();
    expect(pkg.peerDependencies['supertokens-node']).toBe('>=24.0.0');
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['bcryptjs', 'hash-wasm', 'jose']);
  });

  it.each(['.', './protocol', './session'])('%s resolves to ESM for import and CommonJS for require, each with its types', (entry) => {
    const require = createRequire(`${REPO}/package.json`);
    const name = entry === '.' ? 'auth-migrate-signin' : `auth-migrate-signin/${entry.slice(2)}`;
    const sub = entry === '.' ? '' : `${entry.slice(2)}/`;
    expect(require.resolve(name)).toBe(`${PKG}/dist/cjs/${sub}index.js`);
    expect(pkg.exports[entry].import.default).toBe(`./dist/esm/${sub}index.js`);
    for (const build of ['esm', 'cjs']) expect(existsSync(`${PKG}/dist/${build}/${sub}index.d.ts`)).toBe(true);
    expect(JSON.parse(readFileSync(`${PKG}/dist/cjs/package.json`, 'utf8'))).toEqual({ type: 'commonjs' });
  });

  it.each(['esm', 'cjs'])('the %s build imports nothing of the CLI: only the SDK, the hash libraries and node built-ins', (build) => {
    const { files, packages } = importGraph(`${PKG}/dist/${build}/index.js`);
    expect([...packages].sort()).toEqual(['bcryptjs', 'hash-wasm', 'node:', 'supertokens-node']);
    expect([...files].every((f) => f.startsWith(`${PKG}/dist/${build}/`))).toBe(true);
    expect([...files].map((f) => f.slice(PKG.length + 1))).toContain(`dist/${build}/migrate.js`);
    const protocol = importGraph(`${PKG}/dist/${build}/protocol/index.js`);
    expect([...protocol.packages].sort()).toEqual(['bcryptjs', 'hash-wasm', 'node:']);
    // Session exchange (./session): the JWT library and the SDK, nothing of the CLI.
    const session = importGraph(`${PKG}/dist/${build}/session/index.js`);
    expect([...session.packages].every((p) => ['jose', 'node:', 'supertokens-node'].includes(p))).toBe(true);
    expect([...session.files].every((f) => f.startsWith(`${PKG}/dist/${build}/`))).toBe(true);
  });

  it('loads in a plain Node process both ways and exports the override, the Cognito verdict and the metadata filter', async () => {
    const esm = await import('auth-migrate-signin');
    const cjs = createRequire(`${REPO}/package.json`)('auth-migrate-signin') as typeof esm;
    for (const mod of [esm, cjs]) {
      expect(typeof mod.withLegacySignIn).toBe('function');
      expect(mod.cognitoVerdict(undefined, { name: 'NotAuthorizedException' })).toBe('WRONG_PASSWORD');
      expect(mod.withoutLegacyEntry({ plan: 'pro', [mod.LEGACY_ENTRY_KEY]: { hash: 'x' }, [mod.LEGACY_DONE_KEY]: {} })).toEqual({
        plan: 'pro',
      });
      // No secret, or a short one, is refused when the app starts, not at the first sign-in.
      expect(() => mod.withLegacySignIn({} as never)).toThrow(/AUTH_MIGRATE_SIGNIN_SECRET/);
      expect(() => mod.withLegacySignIn({ secret: 'short' })).toThrow(/too short \(5 of at least 32/);
    }
  });
});
