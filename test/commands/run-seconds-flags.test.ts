// `run --job-interval` and `--stall-after`: seconds above 0 up to a bound, in ms; a bad value is a usage error
// naming the flag and what it got; an absent one is the default (the target's interval; the watcher's stall rule).
import { describe, expect, it } from 'vitest';
import { parseJobInterval, parseStallAfter } from '../../src/commands/run-request.js';

describe('run: flags given in seconds', () => {
  it('--job-interval: seconds in ms, the fallback when absent, a usage error naming the flag otherwise', () => {
    expect(parseJobInterval('5', 300_000)).toBe(5_000);
    expect(parseJobInterval('0.5', 300_000)).toBe(500);
    expect(parseJobInterval(undefined, 300_000)).toBe(300_000);
    for (const bad of ['0', '-1', 'soon', '86401'])
      expect(() => parseJobInterval(bad, 300_000)).toThrow(
        `--job-interval must be a number of seconds above 0, at most 86400 (got "${bad}")`,
      );
  });

  it('--stall-after: seconds in ms, undefined when absent (the default rule applies), a usage error otherwise', () => {
    expect(parseStallAfter('3')).toBe(3_000);
    expect(parseStallAfter('604800')).toBe(604_800_000);
    expect(parseStallAfter(undefined)).toBeUndefined();
    for (const bad of ['0', 'x', '604801'])
      expect(() => parseStallAfter(bad)).toThrow(`--stall-after must be a number of seconds above 0, at most 604800 (got "${bad}")`);
  });
});
