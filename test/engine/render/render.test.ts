// Renderers: the plain one throttles progress to one line a second and never prints secrets; JSON lines parse.
import { describe, expect, it } from 'vitest';
import { describeKnowledge } from '../../../src/engine/strategies/steps/knowledge-choice.js';
import { emptyTotals, type RunEvent, type Totals } from '../../../src/engine/events.js';
import { createJsonLinesRenderer } from '../../../src/engine/render/json.js';
import { createPlainRenderer, formatProgress, terminalLines } from '../../../src/engine/render/plain.js';
import { describeStagedStalled } from '../../../src/engine/render/job-line.js';

function userDone(done: number, at: number, totals: Totals, outcome: 'imported' | 'failed' = 'imported'): RunEvent {
  return {
    type: 'user-done',
    done,
    at,
    totals,
    result: { id: `u${done}`, outcome, stepsRun: 1, stepsFromJournal: 0, step: 'password', status: 'HTTP 400', message: 'bad' },
  };
}

describe('plain renderer', () => {
  it('prints at most one progress line a second, failures as they come, and the totals', () => {
    const lines: string[] = [];
    let clock = 0;
    const render = createPlainRenderer({ write: (l) => lines.push(l), now: () => clock });
    render({ type: 'run-started', total: 100, concurrency: 8, journal: '/j', at: 0 });
    const t = emptyTotals(100);
    for (let i = 1; i <= 50; i += 1) {
      clock = i * 100; // 10 users a second for 5 s
      t.imported += 1;
      render(userDone(i, clock, { ...t }));
    }
    const progress = lines.filter((l) => l.includes('users ('));
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress.length).toBeLessThanOrEqual(6);
    expect(progress.at(-1)).toMatch(/^\d+\/100 users \(\d+%\), 10\.0\/s, ETA 0m0[56]s, failed 0$/);
    t.failed += 1;
    render(userDone(51, 5100, { ...t }, 'failed'));
    expect(lines).toContain('failed: u51 at step password: HTTP 400: bad');
    render({ type: 'finished', totals: t, durationMs: 5100, at: 5100 });
    expect(lines.at(-1)).toBe('finished in 0m05s: imported 50, already present 0, failed 1, skipped 0');
  });

  it('says how a steps run learns what the core holds (describeKnowledge, one line)', () => {
    const lines: string[] = [];
    const render = createPlainRenderer({ write: (l) => lines.push(l), now: () => 0 });
    for (const [coreUsers, listed] of [
      [0, true],
      [500_000, false],
      [undefined, false],
    ] as const) {
      render({
        type: 'core-knowledge',
        listed,
        ...(coreUsers !== undefined ? { coreUsers } : {}),
        runUsers: 2_000,
        detail: describeKnowledge(coreUsers, 2_000, listed),
        at: 0,
      });
    }
    expect(lines).toEqual([
      "the core holds 0 users, at most 10 for each of the run's 2,000: read once in bulk and kept fresh, each user is looked up only when it is there",
      "the core holds 500,000 users, more than 10 for each of the run's 2,000: each user is looked up before it is written (reading them all would cost more)",
      'the core did not say how many users it holds: each user is looked up before it is written',
    ]);
  });

  it('formats ETA for long runs', () => {
    const t = { ...emptyTotals(1_000_000), imported: 1000 };
    expect(formatProgress(t, 10_000, 3)).toBe('1000/1000000 users (0%), 100.0/s, ETA 2h46m30s, failed 0, 3 retries');
  });

  it('shows the users at a time once the run adapted it to the core', () => {
    const lines: string[] = [];
    let clock = 0;
    const render = createPlainRenderer({ write: (l) => lines.push(l), now: () => clock });
    const t = { ...emptyTotals(10), imported: 1 };
    render({ type: 'concurrency', limit: 11, max: 16, reason: '9 of 40 answers were 5xx, resets or timeouts', at: 0 });
    clock = 2000;
    render({ type: 'user-done', result: { id: 'a', outcome: 'imported', stepsRun: 1, stepsFromJournal: 0 }, done: 1, totals: t, at: 2000 });
    expect(lines.at(-1)).toMatch(/, 11 of 16 at a time$/);
  });
});

describe('JSON lines renderer', () => {
  it('writes one parseable event per line', () => {
    const lines: string[] = [];
    const render = createJsonLinesRenderer((l) => lines.push(l));
    render({ type: 'paused', at: 1 });
    render({ type: 'finished', totals: emptyTotals(0), durationMs: 3, at: 2 });
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['paused', 'finished']);
  });
});

describe('plain renderer while the core is down', () => {
  it('says what it waits for, at most every five seconds', () => {
    const lines: string[] = [];
    let clock = 0;
    const render = createPlainRenderer({ write: (l) => lines.push(l), now: () => clock });
    render({ type: 'run-started', total: 10, concurrency: 2, journal: '/j', at: 0 });
    for (let i = 1; i <= 20; i += 1) {
      clock = i * 1000;
      render({ type: 'retry', method: 'POST', path: '/recipe/userid/map', attempt: i, delayMs: 1200, reason: 'ECONNREFUSED', at: clock });
    }
    const waits = lines.filter((l) => l.startsWith('waiting for the core'));
    expect(waits.length).toBe(4);
    expect(waits[0]).toBe('waiting for the core: POST /recipe/userid/map failed with ECONNREFUSED; retry 1 in 1200 ms');
  });
});

describe('progress on a terminal, and rates that mean something', () => {
  it('redraws one progress line in place; other lines clear it first; the final line ends it', () => {
    let out = '';
    const stream = { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream;
    let clock = 0;
    const render = createPlainRenderer({ ...terminalLines(stream), now: () => clock, intervalMs: 1000 });
    const totals = { total: 4, imported: 0, alreadyPresent: 0, failed: 0, skipped: 0, resumed: 0 };
    render({ type: 'run-started', total: 4, concurrency: 2, journal: 'j', at: 0 });
    for (let i = 1; i <= 3; i++) {
      clock = i * 1000;
      render({
        type: 'user-done',
        result: { id: `u${i}`, outcome: 'imported', stepsRun: 1, stepsFromJournal: 0 },
        done: i,
        totals: { ...totals, imported: i },
        at: clock,
      });
    }
    render({ type: 'finished', totals: { ...totals, imported: 4 }, durationMs: 4000, at: 4000 });
    const newlines = out.split('\n');
    // run-started, then one physical line holding every redraw, which the final line clears and replaces.
    expect(newlines).toHaveLength(2 + 1);
    expect(newlines[1]).toContain('\r\x1b[2K1/4 users');
    expect(newlines[1]).toContain('\r\x1b[2K3/4 users');
    // eslint-disable-next-line no-control-regex -- the terminal's clear-line sequence is what is tested
    expect(newlines[1]).toMatch(/3\/4 users[^\n]*\r\x1b\[2Kfinished in 0m04s: imported 4/);
  });

  it('the rate leaves out paused time and users resumed from the journal', () => {
    const lines: string[] = [];
    let clock = 0;
    const render = createPlainRenderer({ write: (l) => lines.push(l), now: () => clock, intervalMs: 0 });
    render({ type: 'run-started', total: 100, concurrency: 2, journal: 'j', at: 0 });
    render({ type: 'paused', at: 1000 });
    render({ type: 'resumed', at: 9000 });
    clock = 10_000;
    // 50 resumed from the journal, 20 done by this run in 2 s of running (10 s less 8 s paused).
    render({
      type: 'user-done',
      result: { id: 'x', outcome: 'imported', stepsRun: 1, stepsFromJournal: 0 },
      done: 70,
      totals: { total: 100, imported: 20, alreadyPresent: 50, failed: 0, skipped: 0, resumed: 50 },
      at: clock,
    });
    expect(lines.at(-1)).toMatch(/^70\/100 users \(70%\), 10\.0\/s, ETA 0m03s/);
  });
});

describe('the bulk-import job on a terminal (issue 33 point 8)', () => {
  const staged = (at: number): RunEvent => ({
    type: 'staged-progress',
    staged: 18_250,
    processing: 1_000,
    failed: 12,
    imported: 750,
    of: 20_000,
    running: false,
    intervalMs: 300_000,
    nextRunInMs: 241_000,
    nextRunExact: false,
    idleMs: 59_000,
    rate: undefined,
    etaMs: undefined,
    at,
  });

  for (const columns of [40, 60, 80, 120, undefined]) {
    it(`redraws the job's line within ${columns ?? 'an unknown (80)'} columns, so no update leaves a wrapped fragment`, () => {
      const drawn: string[] = [];
      let clock = 0;
      const render = createPlainRenderer({
        write: () => undefined,
        progress: (l) => drawn.push(l),
        columns: () => columns,
        now: () => clock,
      });
      render({ type: 'staged-phase', phase: 'following', detail: 'waiting', at: 0 });
      for (let i = 1; i <= 3; i++) {
        clock = i * 1000;
        render(staged(clock));
        render(userDone(i, clock, { ...emptyTotals(20_000), imported: i }));
      }
      expect(drawn.length).toBeGreaterThanOrEqual(3);
      for (const line of drawn) expect([...line].length, line).toBeLessThan(columns ?? 80);
      // The widest form that fits is kept: at 120 columns the counts are all there.
      if (columns === 120) expect(drawn.find((l) => l.includes('job'))).toMatch(/18,250 staged, 1,000 processing, 12 failed/);
    });
  }

  it('a job that does not run is told once: a short warning, a short stop; the whole reason is the fatal error', () => {
    const lines: string[] = [];
    const render = createPlainRenderer({ write: (l) => lines.push(l) });
    const stalled = { type: 'staged-stalled', idleMs: 3_000, intervalMs: 1_000, afterMs: 2_000, waiting: 20, at: 3_000 } as const;
    render(stalled);
    render({ type: 'stopping', reason: 'fatal', message: describeStagedStalled(stalled), at: 3_000 });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^warning: the core's bulk-import job has not moved for 0m03s with 20 users waiting/);
    expect(lines.join('\n')).not.toContain('BULK_MIGRATION_CRON_ENABLED');
    // Another fatal error is told whole.
    render({ type: 'stopping', reason: 'fatal', message: 'the disk is full', at: 4_000 });
    expect(lines.at(-1)).toBe('stopping: the disk is full');
  });
});
