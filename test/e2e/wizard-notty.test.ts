// `auth-migrate` without a terminal: prints the headless commands and exits 2, never waiting for keys.
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/auth-migrate.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'am-notty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('auth-migrate without a terminal', () => {
  it.each([[[]], [['--profile', 'night']], [['--out', 'runs', '--profile', 'night']]])(
    'args %j: exits 2 with the headless commands, even with stdin left open',
    async (args) => {
      // stdin is a pipe that is never closed: a wizard waiting for keys would hang until the timeout.
      const child = execa(process.execPath, [BIN, ...args], {
        env: { AUTH_MIGRATE_CONFIG_DIR: dir },
        stdin: 'pipe',
        reject: false,
        timeout: 20_000,
      });
      const r = await child;
      expect(r.timedOut).toBe(false);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('needs a terminal');
      for (const command of [
        'auth-migrate validate',
        'auth-migrate run',
        '--sandbox',
        '--core URL',
        'auth-migrate verify',
        'auth-migrate profiles list',
      ]) {
        expect(r.stderr).toContain(command);
      }
      expect(r.stdout).toBe('');
    },
  );

  it('npm start without a terminal does the same', async () => {
    const r = await execa('npm', ['start', '--silent'], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      env: { AUTH_MIGRATE_CONFIG_DIR: dir },
      stdin: 'pipe',
      reject: false,
      timeout: 30_000,
    });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('needs a terminal');
  });
});
