// The built CLI (`node bin/auth-migrate.js validate`, as `npm test` builds it first) on the fixtures.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${root}bin/auth-migrate.js`;
// The signer key of the fixtures' made-up Firebase project (fixtures/README.md).
const FIXTURE_SIGNER_KEY = 'oACH+/dHnLht/nR9I2c/J30RZcRJMAptl8xLNKiLwjG4dMX+PcEnUmk/JrmTIEMMn909/bdmTa3z7LHr1e8dCg==';

function cli(args: string[], env: Record<string, string> = {}) {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AUTH_MIGRATE_')) clean[k] = v;
  return execa(process.execPath, [BIN, 'validate', ...args], { cwd: root, reject: false, env: { ...clean, ...env }, extendEnv: false });
}

beforeAll(() => {
  if (!existsSync(`${root}dist/commands/validate.js`)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
});

describe('node bin/auth-migrate.js validate', () => {
  it('exits 0 on the canonical fixture and spot-checks its passwords', async () => {
    const r = await cli(
      ['fixtures/canonical/users.json', '--check-password', 'ada@example.com:ada-StrF2LDv', '--check-password', 'c-cy:cy-peRbSVMr'],
      {
        AUTH_MIGRATE_SIGNER_KEY: FIXTURE_SIGNER_KEY,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Validated 6 records from 1 file: 6 valid, 0 invalid');
    expect(r.stdout).toContain('ada@example.com: ok');
    expect(r.stdout).toContain('c-cy: ok');
    expect(r.stdout).not.toContain('ada-StrF2LDv');
    expect(r.stdout).not.toContain(FIXTURE_SIGNER_KEY);
    expect(r.exitCode).toBe(0);
  });

  it('exits 1 on the broken hash fixture, with --json on stdout', async () => {
    const r = await cli(['fixtures/broken/bad-hashes.json', '--json']);
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout) as { summary: { invalid: number; errors: number }; problems: Array<{ rule: string }> };
    expect(doc.summary.invalid).toBeGreaterThan(0);
    expect(doc.problems.map((p) => p.rule)).toContain('password.format.unknown');
    expect(doc.problems.map((p) => p.rule)).toContain('password.unusable');
  });

  it('a reader that closes the pipe early (| head -1) gets no EPIPE stack trace, and the exit code is still the verdict', async () => {
    // 20,000 problem lines: far more than a pipe holds, so the writer meets the closed pipe.
    const dir = mkdtempSync(join(tmpdir(), 'am-epipe-'));
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ id: `u${i}`, email: 'not-an-email' })).join('\n') + '\n');
    const command = `"${process.execPath}" "${BIN}" validate "${file}" --max-problems 100000 | head -1`;
    const r = await execa('bash', ['-o', 'pipefail', '-c', command], { cwd: root, reject: false });
    rmSync(dir, { recursive: true, force: true });
    expect(r.stdout.split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/EPIPE|at \S+ \(/);
    expect(r.exitCode).toBe(1);
  });

  it('exits 2 with one line and no stack trace on unreadable input', async () => {
    const r = await cli(['fixtures/broken/garbage.bin']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^auth-migrate: /);
  });
});
