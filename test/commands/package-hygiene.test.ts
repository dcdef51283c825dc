// Issue 15's package items, each checked: the licence, lint and format run by `npm test`, no source maps shipped,
// no dead dependency, TOTP codes from otplib, the README's claims (npm start, the PATH, the sample credentials
// file, what lowdb does), and the top-level help (every profiles verb, where run files go).
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { helpText } from '../../src/cli.js';
import { PASSWORDS, REPO } from '../support/fixture.js';

const pkg = JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as {
  license: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  files: string[];
};
const readme = readFileSync(`${REPO}README.md`, 'utf8');

describe('package hygiene', () => {
  it('an MIT LICENSE file matches the declared licence', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(`${REPO}LICENSE`, 'utf8')).toMatch(/^MIT License/m);
  });

  it('npm test runs the type check, ESLint and the Prettier check first', () => {
    expect(pkg.scripts.pretest).toMatch(/npm run typecheck && npm run lint && npm run format:check/);
    expect(pkg.scripts.lint).toBe('eslint .');
    expect(pkg.scripts['format:check']).toMatch(/^prettier --check /);
    expect(existsSync(`${REPO}eslint.config.js`)).toBe(true);
    expect(readFileSync(`${REPO}eslint.config.js`, 'utf8')).toContain('typescript-eslint');
  });

  it('the published files hold no source map (the build makes none)', async () => {
    const tsconfig = JSON.parse(readFileSync(`${REPO}tsconfig.build.json`, 'utf8')) as { compilerOptions: { sourceMap?: boolean } };
    expect(tsconfig.compilerOptions.sourceMap).toBe(false);
    const packed = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO });
    const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain('bin/auth-migrate.js');
    // The command line ships as its bundle (rolldown.config.mjs); tsc's modules, which tests and bench import, do not.
    expect(files).toContain('dist/bin/cli.js');
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bin/'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files).toContain('LICENSE');
    // The fixture generators live in tools/ and are not published.
    expect(files.filter((f) => f.startsWith('tools/') || f.includes('generators'))).toEqual([]);
  });

  it('no dead dependency; TOTP codes come from otplib, a runtime dependency that the source imports', () => {
    expect(pkg.dependencies['ink-select-input']).toBeUndefined();
    expect(pkg.devDependencies['ink-select-input']).toBeUndefined();
    expect(pkg.dependencies.otplib).toBeDefined();
    expect(readFileSync(`${REPO}src/shared/totp-code.ts`, 'utf8')).toMatch(/from 'otplib'/);
  });

  it('the README is true about npm start, the PATH, the sample credentials file and lowdb', () => {
    expect(pkg.scripts.start).toBe('node bin/auth-migrate.js');
    expect(readme).toMatch(/`npm install` also compiles/);
    expect(readme).toContain('npm link');
    expect(readme).toContain('npx auth-migrate');
    expect(readme).toContain('fixtures/canonical/known.csv');
    expect(readme).not.toMatch(/stores its data with lowdb/);
    // The sample credentials file signs in the fixture's users with their documented passwords.
    const lines = readFileSync(`${REPO}fixtures/canonical/known.csv`, 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(lines).toContain(`ada@example.com,${PASSWORDS.ada}`);
  });

  it('the top-level help lists every profiles verb and says where run files go', () => {
    const help = helpText();
    expect(help).toMatch(/profiles\s+saved migration profiles: list, show, delete, rename, duplicate/);
    expect(help).toContain('--out DIR');
    expect(help).toMatch(/one\s+folder named for the profile/);
  });
});
