// The longest recent answer (pace/answer-times.ts), which sizes the steps path's commit margin
// (strategies/steps/knowledge.ts commitMargin): an answer counts for at least a window after it came, and is
// forgotten once two windows have passed. The clock is injected: nothing here depends on the machine's speed.
import { describe, expect, it } from 'vitest';
import { RecentLongest } from '../../../src/engine/pace/answer-times.js';

describe('RecentLongest', () => {
  it('none before an answer; then the longest of the window under way and the last, forgotten after two', () => {
    let now = 1_000;
    const recent = new RecentLongest(10_000, () => now);
    expect(recent.longest()).toBeUndefined();
    recent.add(40);
    recent.add(300);
    recent.add(120);
    expect(recent.longest()).toBe(300);
    now += 9_999; // still the first window
    expect(recent.longest()).toBe(300);
    now += 1; // a new window: the last one's longest still counts
    recent.add(80);
    expect(recent.longest()).toBe(300);
    now += 10_000; // the 300 ms answer came more than a window ago and its window is gone; the 80 ms one is kept
    expect(recent.longest()).toBe(80);
    now += 20_000; // nothing for two windows: nothing known
    expect(recent.longest()).toBeUndefined();
  });

  it('an answer counts for at least a window after it came, wherever in its window it came', () => {
    let now = 0;
    const recent = new RecentLongest(10_000, () => now);
    now = 9_990; // at the end of the first window
    recent.add(700);
    now = 19_980; // 9,990 ms after it came
    expect(recent.longest()).toBe(700);
  });
});
