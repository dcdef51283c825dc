// Backoff with full jitter and Retry-After parsing, table-driven.
import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../src/core-client/index.js';
import { isTransientNetworkError } from '../../src/core-client/retry.js';

const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };

describe('backoffDelay', () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1000],
    [12, 1000],
  ])('attempt %i waits below a ceiling of %i ms', (attempt, ceiling) => {
    expect(backoffDelay(policy, attempt, () => 0)).toBe(0);
    expect(backoffDelay(policy, attempt, () => 0.999999)).toBe(ceiling - 1);
    expect(backoffDelay(policy, attempt, () => 0.5)).toBe(Math.floor(ceiling / 2));
  });

  it('is spread out (full jitter) with the real random source', () => {
    const samples = Array.from({ length: 200 }, () => backoffDelay(policy, 4));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...samples)).toBeLessThan(800);
    expect(new Set(samples).size).toBeGreaterThan(50);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each<[string | undefined, number | undefined]>([
    ['2', 2000],
    [' 0 ', 0],
    ['1.5', 1500],
    ['Thu, 01 Jan 2026 00:00:03 GMT', 3000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s -> %s ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });
});

describe('isTransientNetworkError', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: 'ECONNRESET' }, true],
    [{ message: 'socket hang up' }, true],
    [{ code: 'ERR_CORE_TIMEOUT' }, true],
    [{ code: 'ENOTFOUND' }, false],
    [{ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, false],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, false],
  ])('%j -> %s', (err, transient) => {
    expect(isTransientNetworkError(err)).toBe(transient);
  });
});
