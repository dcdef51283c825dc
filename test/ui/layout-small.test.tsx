// Issue 33 item 2: each screen lays itself out from the terminal's rows and columns. At 60x16 the primary content is
// in view and scrolls (the preview's table rows, every plan option, the whole of a refusal, the dry run) and the
// preview's summary folds; no frame is taller or wider than the terminal.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { lossLine } from '../../src/operations/partial.js';
import { createRealServices } from '../../src/ui/services/real.js';
import type { WizardInput, TargetConnection } from '../../src/ui/services/types.js';
import { initialState, reducer } from '../../src/ui/state/reducer.js';
import type { Action } from '../../src/ui/state/types.js';
import { REPO } from '../support/fixture.js';
import { KEYS, keysToPreview, renderWizard, waitFor } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'am-small-'));
const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rowsOf = (frame: string) => stripVTControlCharacters(frame).replace(/\n$/, '').split('\n');
function fits(frame: string, columns: number, rows: number) {
  const l = rowsOf(frame);
  expect(l.length).toBeLessThanOrEqual(rows - 1);
  for (const line of l) expect(line.length, `too wide: ${line}`).toBeLessThanOrEqual(columns);
}

describe('at 60x16', () => {
  it('the preview folds its summary and shows every row of a six-user table', async () => {
    copyFileSync(join(REPO, 'fixtures', 'supabase', 'users.csv'), join(dir, 'users.csv'));
    await saveProfile({ ...emptyProfile('small'), sources: [{ path: join(dir, 'users.csv'), format: 'supabase' }] }, {}, env);
    const w = renderWizard(createRealServices({ env, cwd: dir }), 'small', { columns: 60, rows: 16 });
    try {
      await keysToPreview(w);
      const frame = await w.until(/records 6 · valid 5/);
      const table = rowsOf(frame).filter((l) => /@example\.c|\+1415/.test(l));
      expect(table).toHaveLength(6);
      expect(frame).not.toContain('TOTP devices');
      fits(frame, 60, 16);
      // A record's details fit and say they scroll.
      w.stdin.write(KEYS.enter);
      const detail = await w.until('preview: one record');
      fits(detail, 60, 16);
      expect(detail).toMatch(/↑\/↓ scroll/);
    } finally {
      w.unmount();
    }
  });

  it('the plan with a refusal: the whole refusal (pgdn), every option (↓), and the dry run (d)', async () => {
    const services = createRealServices({ env, cwd: dir });
    const input: WizardInput = { sources: [{ path: join(dir, 'users.csv'), format: 'supabase' }] };
    const target: TargetConnection = { url: 'http://127.0.0.1:9' };
    const plan = await services.plan(input, target);
    expect(plan.losses.length).toBeGreaterThan(0);
    const actions: Action[] = [
      { type: 'profile-opened', loaded: { profile: { ...emptyProfile('sb'), sources: input.sources }, secrets: {}, missing: [] } },
      { type: 'target-ready', target },
      { type: 'go', step: 'plan' },
      { type: 'plan-ready', plan },
    ];
    const w = renderWizard(services, undefined, { columns: 60, rows: 16 }, actions.reduce(reducer, initialState()));
    try {
      await w.until('6/8 plan');
      // Page through: every row of the refusal comes into view, none cut.
      const seen: string[] = [];
      for (let i = 0; i < 8; i += 1) {
        fits(w.frame(), 60, 16);
        // The rows of the plan (the title, the "more" line and the key help aside); a page repeats the row before it.
        const body = rowsOf(w.frame()).slice(2);
        const end = body.findIndex((l) => l.includes('more line') || l.startsWith('↑/↓ option'));
        for (const row of body.slice(0, end < 0 ? undefined : end)) if (!seen.includes(row)) seen.push(row);
        if (!w.frame().includes('more line')) break;
        const before = w.frame();
        w.stdin.write('\u001b[6~');
        await waitFor(() => w.frame() !== before && w.frame(), 'the next page');
      }
      const text = seen.join(' ').replace(/\s+/g, ' ');
      for (const loss of plan.losses) expect(text).toContain(lossLine(loss).replace(/\s+/g, ' '));
      expect(text).toContain('the run is refused until this is fixed; press a to go on without them');
      // ↓ to the last option: it is in view.
      w.stdin.write(KEYS.down.repeat(6));
      await w.until(/› write users via/);
      fits(w.frame(), 60, 16);
      w.stdin.write('d');
      const dry = await w.until('dry run: nothing was written');
      expect(rowsOf(dry).filter((l) => /^user |^ {2}\d+\. /.test(l)).length).toBeGreaterThan(0);
      fits(dry, 60, 16);
    } finally {
      w.unmount();
    }
  });
});

describe('wrapToRows and scrollWindow', () => {
  it('wrap at words, keep indentation, cut a word longer than a row; the window keeps a line in view', async () => {
    const { scrollWindow, wrapToRows } = await import('../../src/ui/fit.js');
    expect(wrapToRows('  keep source ids  no', 80)).toEqual(['  keep source ids  no']);
    expect(wrapToRows('      4 × POST /a', 80)).toEqual(['      4 × POST /a']);
    expect(wrapToRows('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrapToRows('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(scrollWindow([1, 1, 1], 5, 0)).toEqual({ first: 0, count: 3, hidden: 0 });
    // Ten rows in five: four shown and a "more" row; following row 7 starts the window at 4.
    expect(scrollWindow(Array(10).fill(1), 5, 0)).toEqual({ first: 0, count: 4, hidden: 6 });
    expect(scrollWindow(Array(10).fill(1), 5, undefined, 7)).toEqual({ first: 4, count: 4, hidden: 2 });
  });
});
