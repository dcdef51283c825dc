// Issue 33 items 1, 2 and 5: the built wizard in a real terminal (tmux) at 60x16, 80x24 and 120x40, every step of a
// sandbox migration sent as ONE burst (tmux send-keys of several keys and strings at once, a paste of the hash
// parameters): a new profile, its keys, the sources with pasted hash parameters, the preview's filter and search, a
// spot-check with a wrong then a right password, a plan option then the dry run and the run, verify, and undo.
// After each burst the screen must show what the keys did, and no row is wider than the terminal.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANONICAL, LICENSE_KEY, PASSWORDS, REPO } from '../support/fixture.js';
import { TMUX, tmuxInTempDir } from './tmux-driver.js';

const { dir, t } = tmuxInTempDir('am-burst-');
const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };

const rowsOf = (screen: string) => screen.replace(/\n+$/, '').split('\n');
const flat = (screen: string) => screen.replace(/\s+/g, ' ');

describe.skipIf(!TMUX)('a sandbox migration, each step one burst of keys (tmux)', () => {
  for (const [columns, rows] of [
    [60, 16],
    [80, 24],
    [120, 40],
  ] as const) {
    it(`${columns}x${rows}`, async () => {
      /** The screen once `text` is on it; every row within the terminal's width. */
      const until = async (text: string | RegExp, timeoutMs = 30_000) => {
        const s = await t.until(text, timeoutMs);
        for (const row of rowsOf(s)) expect(row.length, `wider than ${columns}: ${row}`).toBeLessThanOrEqual(columns);
        return s;
      };
      const name = `burst${columns}`;
      await t.launch([], { cwd: dir, env, columns, rows });
      await until('+ new profile');
      await t.sendKeys('n', name, 'Enter');
      let s = await until(`2/8 keys · profile ${name}`);
      // The licence key typed after two arrows, in one burst: it lands in its field (the api key stays unset).
      await t.sendKeys('Down', 'Down', LICENSE_KEY);
      s = await until(new RegExp(`licence key\\s+•+\\s+✓ ${LICENSE_KEY.length} chars`));
      expect(s).toMatch(/api key\s+not set/);
      // Down to "continue" and on, one burst.
      await t.sendKeys('Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Enter');
      await until('3/8 source files');
      await t.sendKeys(CANONICAL, 'Enter');
      await until('[canonical]');
      // The hash parameters pasted into their field (the paste ends with a newline: it submits).
      await t.sendKeys('Down', 'Down');
      await until('› hash params');
      await t.paste(join(REPO, 'fixtures', 'firebase', 'hash-config.txt'));
      await until('signer key set');
      await t.sendKeys('Down', 'Down', 'Enter');
      s = await until(/records 6 · valid 6/);
      expect(rowsOf(s).filter((r) => /^[ ›] c-(ada|bob|cy|dee|eve|fay)\s/.test(r))).toHaveLength(6);

      // Filter twice in one burst, then once more; a search typed and entered in one burst.
      await t.sendKeys('f', 'f');
      await until('f filter (warnings)');
      await t.sendKeys('f');
      await until('f filter (all)');
      await t.sendKeys('/', 'bob@', 'Enter');
      s = await until('"bob@": 1 found');
      expect(s).toMatch(/^› c-bob\s/m);
      await t.sendKeys('Escape');
      await until(/^› c-ada\s/m);

      // A spot-check: s, a wrong password and enter in one burst; then the right one.
      await t.sendKeys('Enter');
      await until('id c-ada');
      await t.sendKeys('s', 'not-adas-secret', 'Enter');
      s = await until(/spot-check: (?!match)\S+/);
      expect(s).not.toContain('spot-check: match');
      expect(s).not.toContain('not-adas-secret');
      await t.sendKeys('s', PASSWORDS.ada, 'Enter');
      s = await until('spot-check: match');
      expect(s).not.toContain(PASSWORDS.ada);
      await t.sendKeys('Escape', 'c');
      await until('5/8 target');
      await t.sendKeys('Down', 'Down', 'Enter');
      await until('preflight passed: c continues to the plan');
      await t.sendKeys('c');
      await until('6 users to migrate');

      // An option changed and back in one burst each, then the dry run, then the run.
      await t.sendKeys('Down', 'Down', 'Right');
      await until(/update existing\s+yes: replace/);
      await t.sendKeys('Left', 'd');
      s = await until('dry run: nothing was written');
      expect(flat(s)).toMatch(/update existing no: leave existing users unchanged|dry run: nothing was written/);
      await t.sendKeys('r');
      s = await until(/8\/8 results: finished/, 60_000);
      expect(s).toMatch(/imported 6/);
      await t.sendKeys('v');
      await until(/verify: 6\/6 users ok/, 60_000);

      // Undo: the question, y, and after it no "y undo it" and no u.
      await t.sendKeys('u');
      s = await until('y undo it · esc cancel', 60_000);
      await t.sendKeys('y');
      s = await until(/undone: 6 users, 0 failed/, 60_000);
      s = await until('esc back to the results');
      expect(flat(s)).not.toContain('y undo it');
      await t.sendKeys('Escape');
      s = await until('v verify');
      expect(flat(s)).not.toContain('u undo the run');
      // The retired journal is not listed as the run's journal.
      expect(flat(s)).not.toMatch(/journal\.ndjson(?!\.)/);
    }, 240_000);
  }
});
