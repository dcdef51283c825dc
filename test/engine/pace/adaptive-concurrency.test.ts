// The adaptive concurrency limit (AIMD over windows of answers), table-driven, without a core; and the client's
// observer, which feeds it, against a real HTTP server answering 500s and 200s.
import { describe, expect, it } from 'vitest';
import { createAdaptiveConcurrency, type ConcurrencyChange } from '../../../src/engine/pace/adaptive-concurrency.js';
import { createCoreClient } from '../../../src/core-client/client.js';
import type { AttemptAnswer } from '../../../src/core-client/types.js';
import { okJson, startCaptureServer } from '../../support/capture-server.js';

/** Feed `n` answers, `troubled` of them in trouble, spread evenly. */
function feed(l: { answer(t: boolean): void }, n: number, troubled: number): void {
  for (let i = 0; i < n; i++) l.answer(Math.floor(((i + 1) * troubled) / n) > Math.floor((i * troubled) / n));
}

describe('adaptive concurrency', () => {
  it('starts at --concurrency and stays there while answers are clean', () => {
    const changes: ConcurrencyChange[] = [];
    const l = createAdaptiveConcurrency({ max: 16, onChange: (c) => changes.push(c) });
    feed(l, 1000, 0);
    expect(l.limit).toBe(16);
    expect(changes).toEqual([]);
  });

  it('cuts the limit multiplicatively when 5xx, resets or timeouts rise with the load, and stays near what the core takes', () => {
    const changes: ConcurrencyChange[] = [];
    const l = createAdaptiveConcurrency({ max: 64, backOffAbove: 0.1, climbAtOrBelow: 0.02, onChange: (c) => changes.push(c) });
    feed(l, 127, 60); // one answer short of a window (2 x 64): nothing yet
    expect(l.limit).toBe(64);
    l.answer(true);
    expect(l.limit).toBe(44); // floor(64 * 0.7)
    expect(changes[0]).toMatchObject({ limit: 44, max: 64 });
    expect(changes[0]!.reason).toMatch(/61 of 128 answers were 5xx, resets or timeouts/);
    // A core whose lock contention fails more requests the more are in flight past 6, none at or below.
    const seen: number[] = [];
    for (let i = 0; i < 300; i++) {
      const n = Math.max(40, 2 * l.limit);
      feed(l, n, l.limit > 6 ? Math.round((n * 0.5 * (l.limit - 6)) / l.limit) : 0);
      seen.push(l.limit);
    }
    expect(changes.slice(0, 7).map((c) => c.limit)).toEqual([44, 30, 21, 14, 9, 6, 7]);
    expect(Math.max(...seen.slice(50))).toBeLessThanOrEqual(7);
    expect(Math.min(...seen.slice(50))).toBeGreaterThanOrEqual(4);
  });

  it('learns trouble that cutting does not reduce as noise: back to where it was, and no more cuts for it', () => {
    const changes: ConcurrencyChange[] = [];
    const l = createAdaptiveConcurrency({ max: 64, backOffAbove: 0.1, climbAtOrBelow: 0.02, onChange: (c) => changes.push(c) });
    // 12% of answers fail whatever the load (the sandbox's fault modes).
    for (let i = 0; i < 200; i++) feed(l, Math.max(40, 2 * l.limit), Math.round(0.12 * Math.max(40, 2 * l.limit)));
    expect(changes.map((c) => c.limit)).toEqual([44, 30, 21, 14, 9, 6, 4, 2, 1, 64]);
    expect(changes.at(-1)!.reason).toMatch(/at 1 as at 64: not caused by the load/);
    expect(l.limit).toBe(64);
    // Trouble well above that level still cuts.
    feed(l, 128, 60);
    expect(l.limit).toBe(44);
  });

  it('judges a limit only once the users started under a higher one have finished', async () => {
    const l = createAdaptiveConcurrency({ max: 4, minWindow: 4, backOffAbove: 0.1 });
    await Promise.all([l.acquire(), l.acquire(), l.acquire(), l.acquire()]);
    feed(l, 8, 8);
    expect(l.limit).toBe(2);
    feed(l, 100, 100); // the 4 in flight are still the old setting's
    expect(l.limit).toBe(2);
    l.release();
    l.release();
    feed(l, 4, 4);
    expect(l.limit).toBe(1);
  });

  it('never goes below min, nor starts outside [min, max]', () => {
    expect(createAdaptiveConcurrency({ max: 4, start: 99 }).limit).toBe(4);
    const l = createAdaptiveConcurrency({ max: 10, min: 3 });
    const limits: number[] = [];
    for (let i = 0; i < 50; i++) {
      feed(l, 40, l.limit > 3 ? 40 : 0);
      limits.push(l.limit);
    }
    expect(Math.min(...limits)).toBe(3);
  });

  it('hands out at most `limit` slots; a cut takes effect as slots are released; close lets every waiter through', async () => {
    const l = createAdaptiveConcurrency({ max: 3, minWindow: 1 });
    await Promise.all([l.acquire(), l.acquire(), l.acquire()]);
    let fourth = false;
    const waiting = l.acquire().then(() => (fourth = true));
    await Promise.resolve();
    expect(fourth).toBe(false);
    expect(l.inFlight).toBe(3);
    feed(l, 6, 6); // cut to 2
    expect(l.limit).toBe(2);
    l.release(); // 2 held: still not below the limit
    await Promise.resolve();
    expect(fourth).toBe(false);
    l.release(); // 1 held: the waiter gets its slot
    await waiting;
    expect(l.inFlight).toBe(2);
    let fifth = false;
    l.acquire().then(() => (fifth = true));
    await Promise.resolve();
    expect(fifth).toBe(false);
    l.close();
    await Promise.resolve();
    expect(fifth).toBe(true);
  });
});

describe('the client tells its observers of every attempt', () => {
  it('a 500 (retried) and a reset are trouble, a 200 and a 400 are not; observers of other tenants share them', async () => {
    const server = await startCaptureServer((_req, i) =>
      i === 0 ? { status: 500, body: 'database is locked' } : i === 2 ? { status: 400, body: 'bad' } : okJson({ status: 'OK', users: [] }),
    );
    const core = createCoreClient({ url: server.url, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const seen: AttemptAnswer[] = [];
    const stop = core.observe!((a) => seen.push(a));
    try {
      await core.listUsersByAccountInfo({ email: 'a@x.io' }); // 500, then 200
      await expect(core.forTenant('t1').listUsersByAccountInfo({ email: 'a@x.io' })).rejects.toThrow(/400/);
      expect(seen.map(({ ms: _, ...rest }) => rest)).toEqual([
        { trouble: true, status: 500 },
        { trouble: false, status: 200 },
        { trouble: false, status: 400 },
      ]);
      // Each attempt says how long it took (the steps path's knowledge sizes its commit margin by it).
      for (const a of seen) expect(a.ms).toBeGreaterThan(0);
      stop();
      await core.listUsersByAccountInfo({ email: 'a@x.io' });
      expect(seen).toHaveLength(3);
    } finally {
      core.close();
      await server.stop();
    }
  });
});
