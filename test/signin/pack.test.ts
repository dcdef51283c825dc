// Issue 32's done-when for the package an app installs: `npm pack` of packages/signin, installed into an empty
// folder with supertokens-node alone, loads with `require` and with `import` (both entries), and none of the CLI's
// workbench packages (ink, react, lowdb, conf, execa, undici) is in that folder's node_modules. Installs from the
// npm cache when it can (--prefer-offline), from the registry otherwise.
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PKG = resolve(import.meta.dirname, '../../packages/signin');
const WORKBENCH = ['ink', 'react', 'lowdb', 'conf', 'execa', 'undici'];
const SDK_VERSION = (
  JSON.parse(readFileSync(resolve(PKG, '../../node_modules/supertokens-node/package.json'), 'utf8')) as { version: string }
).version;

describe('npm pack of auth-migrate-signin, installed into an empty folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'am-pack-'));
    // The build is `npm run build` (the test script's pretest); packing does not build again.
    const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: PKG });
    const tarball = (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'an-app', version: '1.0.0', private: true }));
    await execa(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`, `supertokens-node@${SDK_VERSION}`],
      { cwd: dir },
    );
  }, 300_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the package and the SDK, and none of the workbench', () => {
    const modules = readdirSync(join(dir, 'node_modules'));
    expect(modules).toContain('auth-migrate-signin');
    expect(modules).toContain('supertokens-node');
    expect(WORKBENCH.filter((name) => existsSync(join(dir, 'node_modules', name)))).toEqual([]);
    // Nor nested deeper, under another package.
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const names = Object.keys(lock.packages).map((p) => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(names.filter((n) => WORKBENCH.includes(n))).toEqual([]);
  });

  it('ships the built files, the README and the licence, and no source', () => {
    const files = readdirSync(join(dir, 'node_modules/auth-migrate-signin'));
    expect(files.sort()).toEqual(['LICENSE', 'README.md', 'dist', 'package.json']);
  });

  it.each([
    ['require', `const m = require('auth-migrate-signin'); const p = require('auth-migrate-signin/protocol');`],
    ['import', `const m = await import('auth-migrate-signin'); const p = await import('auth-migrate-signin/protocol');`],
  ])('%s loads both entries', async (how, load) => {
    const script = `${load}
      const override = m.withLegacySignIn({ secret: 'x'.repeat(32) });
      console.log(JSON.stringify({ override: typeof override, entry: m.LEGACY_ENTRY_KEY, placeholder: p.placeholderPassword('x'.repeat(32), 'u1').slice(0, 5) }));`;
    const out = await execa(process.execPath, [...(how === 'import' ? ['--input-type=module'] : []), '-e', script], { cwd: dir });
    expect(JSON.parse(out.stdout)).toEqual({ override: 'function', entry: 'auth-migrate:legacy-password', placeholder: 'amp1_' });
  });
});
