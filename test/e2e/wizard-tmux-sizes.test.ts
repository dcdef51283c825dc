// Issue 23's screens test (items 4 and 5): the built wizard in a real terminal (tmux) at 60x16, 80x24 and 120x40,
// driven through every screen of a sandbox migration and its undo prompt. On each screen the key help is whole
// (never cut to "esc…", wrapped onto two rows at 60 columns), no row is wider than the terminal, the title is on the
// first row and what the keys act on is in view (the focused plan option, the preflight verdict). On the keys screen
// arrows and a key arrive in one write (one read for the wizard): the key lands in the field the arrows moved to.
import {} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { CANONICAL, LICENSE_KEY, SIGNER_KEY } from '../support/fixture.js';
import { TMUX, tmuxInTempDir } from './tmux-driver.js';

const { dir, t } = tmuxInTempDir('am-sizes-');
const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };

const HELP = {
  keys: '↑/↓ move · ←/→ where it is kept · enter next/continue · esc back',
  source: 'enter validate and preview · ↑/↓ move · esc back',
  preview: '↑/↓ pgup/dn · enter details · f filter (all) · / search · c continue · esc back',
  target: '←/→ sandbox/remote · ↑/↓ move · enter next/connect · c continue · esc back',
  plan: '↑/↓ option · ←/→ change · d dry run · r run the migration · esc back',
  results: 'v verify · i sign in · u undo the run · s save now · q quit · esc plan',
  undo: 'y undo it · esc cancel',
};

/** The screen's rows without the blank ones tmux keeps below the frame. */
const rowsOf = (screen: string) => screen.replace(/\n+$/, '').split('\n');

/** The screen ends with `help`, whole, on its last row or two; nothing is wider than the terminal. */
function footerWhole(screen: string, help: string, columns: number): boolean {
  const rows = rowsOf(screen);
  if (Math.max(...rows.map((r) => r.length)) > columns) return false;
  const last = (n: number) => rows.slice(-n).join(' ').replace(/\s+/g, ' ').trim();
  // A screen taller than the terminal scrolls, and says so at the end of its help.
  const helps = [help, `${help} · pgup/dn scroll`];
  return [1, 2, 3].some((n) => helps.includes(last(n)));
}

async function screenWith(help: string, columns: number, text: string | RegExp, what: string): Promise<string> {
  return t.untilScreen(
    (s) => footerWhole(s, help, columns) && (typeof text === 'string' ? s.includes(text) : text.test(s)),
    `${what} with its key help whole at ${columns} columns`,
    30_000,
  );
}

describe.skipIf(!TMUX)('every screen at 60x16, 80x24 and 120x40 (tmux)', () => {
  for (const [columns, rows] of [
    [60, 16],
    [80, 24],
    [120, 40],
  ] as const) {
    it(`${columns}x${rows}: key help whole, focus in view, keys typed after arrows in the right field`, async () => {
      const name = `sizes${columns}`;
      await saveProfile(
        {
          ...emptyProfile(name),
          sources: [{ path: CANONICAL, format: 'canonical' }],
          target: { kind: 'sandbox', store: join(dir, `${name}.json`) },
        },
        {},
        env,
      );
      await t.launch(['--profile', name], { cwd: dir, env, columns, rows });
      await screenWith(HELP.keys, columns, `2/8 keys · profile ${name}`, 'the keys screen');
      // Down Down and the licence key in one write: it lands in the licence field, the api key stays unset.
      await t.sendKeys('Down', 'Down', LICENSE_KEY);
      let s = await t.until(`✓ ${LICENSE_KEY.length} chars`);
      expect(s).toMatch(/api key\s+not set/);
      expect(s).toMatch(new RegExp(`licence key\\s+•+\\s+✓ ${LICENSE_KEY.length} chars`));
      // Then Down Down and the signer key, one write again.
      await t.sendKeys('Down', 'Down', SIGNER_KEY);
      s = await t.until(`✓ ${SIGNER_KEY.length} chars`);
      expect(s).toMatch(new RegExp(`licence key\\s+•+\\s+✓ ${LICENSE_KEY.length} chars`));
      expect(s).toMatch(/api key\s+not set/);
      await screenWith(HELP.keys, columns, `✓ ${SIGNER_KEY.length} chars`, 'the keys screen, typed');

      await t.press('Down', 'Down', 'Down', 'Down', 'Enter');
      await t.until('3/8 source files');
      await t.press('Down', 'Down', 'Down', 'Down');
      await screenWith(HELP.source, columns, '› validate and preview', 'the source screen');
      await t.press('Enter');
      s = await screenWith(HELP.preview, columns, /records 6 · valid 6/, 'the preview');
      // The counts line and at least three records are in view, the selected one among them.
      expect(s).toMatch(/^› c-ada/m);
      expect(rowsOf(s).filter((r) => /^[ ›] c-(ada|bob|cy|dee|eve|fay)\s/.test(r)).length).toBeGreaterThanOrEqual(3);

      await t.press('c');
      await t.until('5/8 target');
      await t.press('Down', 'Down', 'Enter');
      s = await screenWith(HELP.target, columns, 'preflight passed: c continues to the plan', 'the target screen');
      expect(rowsOf(s)[0]).toMatch(/^auth-migrate · 5\/8 target/);
      // No api key given: the sandbox asks for none, and the check says so (not "accepted").
      if (rows >= 24) expect(s).toMatch(/✓ api key\s+none given; the core asks for none/);

      await t.press('c');
      s = await screenWith(HELP.plan, columns, '6 users to migrate', 'the plan');
      // Every option comes into view as ↓ moves to it (at 60x16 the plan scrolls); the last one stays in view, whole,
      // while ←/→ would change it.
      const seen = new Set<string>();
      const labels = ['concurrency', 'keep source ids', 'update existing', 'disabled users', 'unusable hashes', 'scrypt name'];
      for (const label of labels) if (s.includes(label)) seen.add(label);
      for (let i = 0; i < 6; i += 1) {
        await t.press('Down');
        const now = await t.capture();
        for (const label of labels) if (now.includes(`› ${label}`)) seen.add(label);
      }
      expect([...seen].sort()).toEqual([...labels].sort());
      s = await screenWith(HELP.plan, columns, '› write users via  steps:', 'the plan, last option focused');
      if (rows >= 24) expect(s).toContain('6 users to migrate');
      expect(rowsOf(s)[0]).toMatch(/^auth-migrate · 6\/8 plan/);

      await t.press('r');
      s = await screenWith(HELP.results, columns, /8\/8 results: finished/, 'the results');
      expect(s).toMatch(/imported 6/);
      await t.press('u');
      s = await t.untilScreen(
        (x) => footerWhole(x, HELP.undo, columns) && /would remove 6 users the run created/.test(x.replace(/\s+/g, ' ')),
        'the undo question',
        30_000,
      );
      // The question names the core (the sandbox's URL) whole.
      expect(s.replace(/\s+/g, ' ')).toMatch(/about to remove from the core http:\/\/127\.0\.0\.1:\d+ \(app public, tenant public\)/);
      await t.press('Escape');
      await screenWith(HELP.results, columns, /imported 6/, 'the results again');
    });
  }
});
