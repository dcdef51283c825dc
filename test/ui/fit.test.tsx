import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { CANONICAL } from '../support/fixture.js';
import { keysToPreview, renderWizard, SizedStdout, waitFor } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'am-fit-'));
const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function lines(frame: string): string[] {
  return stripVTControlCharacters(frame).replace(/\n$/, '').split('\n');
}

function assertFits(frames: string[], columns: number, rows: number) {
  for (const frame of frames) {
    const l = lines(frame);
    expect(l.length, `a frame of ${l.length} lines:\n${l.join('\n')}`).toBeLessThanOrEqual(rows);
    for (const line of l) expect(line.length, `too wide for ${columns}: ${line}`).toBeLessThanOrEqual(columns);
  }
}

describe('the wizard fits its terminal', () => {
  it('every frame fits 80x24, and a resize to 60x16 and 120x40 redraws to the new size', async () => {
    await saveProfile({ ...emptyProfile('fit'), sources: [{ path: CANONICAL, format: 'canonical' }] }, {}, env);
    const w = renderWizard(createRealServices({ env, cwd: dir }), 'fit', { columns: 80, rows: 24 });
    try {
      await keysToPreview(w);
      await w.until(/records 6 · valid 6/);
      await w.press('down', 'down', 'enter');
      await w.until('id c-cy');
      await w.press('escape');
      await w.until('c continue');
      assertFits(w.frames, 80, 24);
      // The footer sits on the last row but one of the terminal.
      expect(lines(w.frame()).at(-1)).toMatch(/^↑\/↓ pgup\/dn · enter details/);
      expect(lines(w.frame()).length).toBe(23);

      const stdout = (w as unknown as { stdout: SizedStdout }).stdout;
      for (const [columns, rows] of [
        [60, 16],
        [120, 40],
      ] as const) {
        const from = w.frames.length;
        stdout.resize(columns, rows);
        // The key help is whole: on one row at 120 columns, wrapped onto two at 60 (never cut).
        const help = '↑/↓ pgup/dn · enter details · f filter (all) · / search · c continue · esc back';
        const footer = (n: number) => lines(w.frame()).slice(-n).join(' ');
        await waitFor(() => lines(w.frame()).length === rows - 1 && footer(columns < 80 ? 2 : 1) === help, `a ${columns}x${rows} frame`);
        // Ink redraws the old tree once on the resize event; the frame after it is drawn to the new size.
        assertFits([w.frame()], columns, rows);
        expect(w.frames.length).toBeGreaterThan(from);
        // The table shows every record at both sizes (at 60x16 the summary folds to its first line to make room),
        // the selected one always.
        const table = lines(w.frame()).filter((l) => /c-(ada|bob|cy|dee|eve|fay)\s/.test(l));
        expect(table.length).toBe(6);
        if (rows < 20) expect(w.frame()).not.toContain('TOTP devices');
        expect(table.some((l) => l.startsWith('› c-cy'))).toBe(true);
      }
    } finally {
      w.unmount();
    }
  });
});
