// Retry policy: which failures are transient, and how long to wait before the next attempt.
// Retrying a write is safe only because every step a migration sends is idempotent at the core
// (a repeated import/link/map answers "already exists/linked" instead of duplicating): see docs/core-client.md.
import type { RetryPolicy } from './types.js';

export const DEFAULT_RETRY: RetryPolicy = { retries: 8, baseDelayMs: 100, maxDelayMs: 10_000 };

/**
 * Network error codes worth another attempt (the connection failed or broke, the core may be restarting).
 * ENOTFOUND is left out on purpose: a mistyped host name should fail at once, not after every retry.
 */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'ERR_CORE_TIMEOUT',
]);

export function isTransientNetworkError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.code && TRANSIENT_CODES.has(e.code)) return true;
  return typeof e.message === 'string' && /socket hang up/i.test(e.message);
}

/** Short reason for a network error, e.g. `ECONNRESET` or `socket hang up`. */
export function networkReason(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e?.code === 'ERR_CORE_TIMEOUT') return e.message ?? 'timeout';
  if (e?.code) return e.code;
  return e?.message ?? String(err);
}

/** HTTP statuses retried: throttling and server-side trouble. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Full jitter: random(0, min(max, base * 2^(attempt-1))), attempt 1-based. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable.
 * A date in the past gives 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.ceil(Number(s) * 1000);
  const date = Date.parse(s);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
