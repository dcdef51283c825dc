// The operator's view of the core's bulk-import job (staged-job.ts, render/staged-line.ts), as the reference's job
// behaves (ProcessBulkImportUsers: first run at start, then 300 s after each run ends; each run takes the rows
// waiting when it begins): no ETA until the job has run, the next run bounded then known, the rate while it runs,
// a run that stays on between its batches, and "stalled" once nothing moved for more than two intervals and a margin.
import { describe, expect, it } from 'vitest';
import { defaultStallAfterMs, JobWatcher } from '../../../../src/engine/strategies/staged/job.js';
import { describeStagedProgress, describeStagedStalled } from '../../../../src/engine/render/job-line.js';

const INTERVAL = 300_000;
const counts = (NEW: number, PROCESSING = 0, FAILED = 0) => ({ NEW, PROCESSING, FAILED });

describe('JobWatcher', () => {
  it('while the job waits for its next run: no rate, no ETA, the next run within the interval, counting down', () => {
    const w = new JobWatcher(INTERVAL, () => 20_000);
    w.staged(20_000);
    const first = w.observe(counts(20_000), 1_000);
    expect(first).toMatchObject({ running: false, staged: 20_000, imported: 0, of: 20_000, nextRunInMs: INTERVAL, nextRunExact: false });
    expect(first.rate).toBeUndefined();
    expect(first.etaMs).toBeUndefined();
    const later = w.observe(counts(20_000), 61_000);
    expect(later.nextRunInMs).toBe(INTERVAL - 60_000);
    expect(later.etaMs).toBeUndefined();
    const line = describeStagedProgress(later);
    expect(line).toContain('next run within 4m00s (it runs every 5m00s)');
    expect(line).toContain('20,000 staged, 0 processing, 0 failed');
    expect(line).toContain('ETA once the job has run');
    expect(line).not.toMatch(/\d+h\d\dm/); // never an hours-long figure from a rate of nothing
    expect(line).toContain('nothing has moved for 1m00s');
  });

  it('once the job runs: its rate over its own time, an ETA from it, and when the run ends the next one is known', () => {
    const w = new JobWatcher(INTERVAL, () => 20_000);
    w.staged(20_000);
    w.observe(counts(20_000), 0);
    // The job claims 8,000 and imports them at 1,000/s.
    let e = w.observe(counts(12_000, 8_000), 100_000);
    expect(e.running).toBe(true);
    expect(e.rate).toBeUndefined(); // one sample: no rate yet
    expect(e.etaMs).toBeUndefined();
    e = w.observe(counts(12_000, 4_000), 104_000);
    e = w.observe(counts(8_000, 4_000), 108_000);
    expect(e.rate).toBeCloseTo(1_000, -1);
    expect(e.etaMs).toBeCloseTo(12_000, -3);
    expect(e.imported).toBe(8_000);
    expect(describeStagedProgress(e)).toMatch(
      /running; 8,000 staged, 4,000 processing, 0 failed in its list; 8,000 of this run's 20,000 taken by the job, 1,000\/s, ETA 0m12s/,
    );
    // Rows staged while the job ran wait for its next run (300 s after this one ends).
    w.staged(5_000);
    e = w.observe(counts(5_000), 120_000);
    // Nothing claimed for a second while rows wait: the run between two batches (it checks its workers every 1 s).
    e = w.observe(counts(5_000), 121_000);
    expect(e.running).toBe(true);
    expect(e.nextRunInMs).toBeUndefined();
    e = w.observe(counts(5_000), 122_500);
    expect(e.running).toBe(false);
    expect(e).toMatchObject({ nextRunInMs: INTERVAL - 2_500, nextRunExact: true });
    expect(e.etaMs).toBeCloseTo(INTERVAL - 2_500 + 5_000, -3);
    expect(describeStagedProgress(e)).toContain('next run in about 4m58s');
  });

  it('a run of several batches stays "running" through the pause between them, as the reference runs it', () => {
    // Seen on the reference (batches of 8,000, polls every 250 ms): 0 processing for about a second between batches.
    const w = new JobWatcher(5_000, () => 24_000);
    w.staged(24_000);
    w.observe(counts(24_000), 0);
    const seen: boolean[] = [];
    let t = 1_000;
    const polls = [
      [16_000, 8_000],
      [16_000, 0],
      [16_000, 0],
      [16_000, 0],
      [8_000, 8_000],
      [8_000, 0],
      [8_000, 0],
      [0, 8_000],
    ];
    for (const [NEW, PROCESSING] of polls) {
      seen.push(w.observe(counts(NEW!, PROCESSING), t).running);
      t += 250;
    }
    expect(seen).toEqual(polls.map(() => true));
    expect(w.observe(counts(0), t)).toMatchObject({ running: true, imported: 24_000 }); // the last batch left the list
    const end = w.observe(counts(0), t + 250); // nothing waits: the run is over at once
    expect(end.running).toBe(false);
    expect(end).toMatchObject({ nextRunInMs: 5_000 - 250, nextRunExact: true });
  });

  it('stalled only after more than two intervals and a margin (the interval, at most 30 s), never before a minute', () => {
    // Told how long (run --stall-after): that long.
    const w = new JobWatcher(1_000, () => 10, 3_000);
    w.staged(10);
    w.observe(counts(10), 0);
    expect(w.stalled(1_500)).toBe(false);
    w.observe(counts(10), 3_000);
    expect(w.stalled(3_000)).toBe(false);
    w.observe(counts(10), 3_100);
    expect(w.stalled(3_100)).toBe(true);
    // A 5 s interval: a run that starts 27 s after the last (seen on the reference, busy: bench m33c, where two
    // intervals and a margin, 15 s, stopped a healthy run) is not a stall; a minute of nothing is.
    expect(defaultStallAfterMs(5_000)).toBe(60_000);
    expect(defaultStallAfterMs(1_000)).toBe(60_000);
    const five = new JobWatcher(5_000, () => 10);
    five.staged(10);
    five.observe(counts(10), 0);
    five.observe(counts(10), 27_000);
    expect(five.stalled(27_000)).toBe(false);
    five.observe(counts(10), 60_000);
    expect(five.stalled(60_000)).toBe(false);
    five.observe(counts(10), 60_100);
    expect(five.stalled(60_100)).toBe(true);
    // The reference's 300 s: two intervals and 30 s.
    const ref = new JobWatcher(INTERVAL, () => 10);
    ref.staged(10);
    ref.observe(counts(10), 0);
    ref.observe(counts(10), 629_000);
    expect(ref.stalled(629_000)).toBe(false);
    ref.observe(counts(10), 630_100);
    expect(ref.stalled(630_100)).toBe(true);
    expect(ref.stallAfterMs).toBe(630_000);
    const text = describeStagedStalled({
      type: 'staged-stalled',
      idleMs: 630_500,
      intervalMs: INTERVAL,
      afterMs: 630_000,
      waiting: 10,
      at: 0,
    });
    expect(text).toMatch(/has not moved for 10m31s \(more than the 10m30s allowed at its 5m00s interval\)/);
    expect(text).toContain('--stall-after SECONDS');
    expect(text).toContain('BULK_MIGRATION_CRON_ENABLED=false');
    // A job that moved resets the clock.
    const moving = new JobWatcher(1_000, () => 10, 3_000);
    moving.staged(10);
    moving.observe(counts(10), 0);
    moving.observe(counts(5, 5), 1_900);
    moving.observe(counts(5), 2_500);
    moving.observe(counts(5), 2_600); // nothing moved since 2,500: between batches, or the run ended
    moving.observe(counts(5), 4_600); // more than 2 s: the run ended at 2,500
    expect(moving.stalled(4_600)).toBe(false);
    moving.observe(counts(5), 5_600);
    expect(moving.stalled(5_600)).toBe(true);
  });

  it('counts asked for while an upload is under way count none of its rows taken: "taken" never passes what was put', () => {
    // Seen on the reference (20,000 users, 2 uploads): the second upload's rows were in the counts before its answer,
    // and the count after it then said "24,000 of this run's 20,000 taken by the job".
    const w = new JobWatcher(5_000, () => 20_000);
    w.staging(10_000);
    w.staged(10_000);
    w.landed();
    w.observe(counts(10_000), 0);
    w.staging(10_000);
    const during = w.asking();
    const e1 = w.observe(counts(20_000), 300, during); // the upload's rows committed, its answer not yet come
    expect(e1.imported).toBe(0);
    w.staged(10_000);
    w.landed();
    expect(w.observe(counts(12_000, 8_000), 2_000).imported).toBe(0); // the job claimed 8,000: none out yet
    expect(w.observe(counts(12_000, 4_000), 3_000).imported).toBe(4_000);
    expect(w.observe(counts(4_000, 8_000), 6_000).imported).toBe(8_000);
    const end = w.observe(counts(0), 12_000);
    expect(end).toMatchObject({ imported: 20_000, of: 20_000 });
    // The same upload's rows not yet in the counts asked for during it: as many taken.
    const v = new JobWatcher(5_000, () => 20_000);
    v.staged(10_000);
    v.observe(counts(10_000), 0);
    v.staging(10_000);
    const asked = v.asking();
    v.staged(10_000); // answered while the counts were on their way: they may hold its rows or not
    v.landed();
    expect(v.observe(counts(10_000), 300, asked).imported).toBe(0);
    expect(v.observe(counts(20_000), 600).imported).toBe(0);
    expect(v.observe(counts(15_000), 900).imported).toBe(5_000);
    // Other runs' rows leaving the list never make this run's figure pass what it put there.
    const x = new JobWatcher(5_000, () => 1_000);
    x.observe(counts(9_000), 0); // another run's rows
    x.staged(1_000);
    expect(x.observe(counts(0), 500)).toMatchObject({ imported: 1_000, of: 1_000 });
  });
});
