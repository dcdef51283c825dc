// How many users a run migrates at once, adapted to how the core answers (issue 20): additive increase,
// multiplicative decrease over windows of answers. A core that answers 5xx, resets connections or times out
// (the reference core's in-memory storage under lock contention) gets fewer requests at once; clean answers
// let the run climb back, never above the operator's --concurrency. The runner asks for a slot per user; the
// core client reports every attempt's outcome (CoreClient.observe).

export interface AdaptiveConcurrencyOptions {
  /** The operator's --concurrency: the limit never goes above it (and starts there). */
  max: number;
  /** Never below this (default 1). */
  min?: number;
  /** Where the limit starts (default max: a clean core runs exactly as before). */
  start?: number;
  /** Answers per window at the least (default 20); a window is at least twice the current limit. */
  minWindow?: number;
  /** Share of troubled answers in a window above which the limit is cut (default 0.1). */
  backOffAbove?: number;
  /** Share at or below which the limit climbs by one (default 0.02). */
  climbAtOrBelow?: number;
  /** Factor of a cut (default 0.7): a cut always lowers the limit by at least one. */
  decrease?: number;
  /** Told of every change of the limit. */
  onChange?: (change: ConcurrencyChange) => void;
}

export interface ConcurrencyChange {
  limit: number;
  max: number;
  /** Why, in a few words (`5xx, resets or timeouts in 14 of 40 answers`, `40 clean answers`). */
  reason: string;
}

export interface AdaptiveConcurrency {
  /** The current limit. */
  readonly limit: number;
  readonly max: number;
  /** Slots held now. */
  readonly inFlight: number;
  /** Wait for a slot (resolves at once while fewer than `limit` are held, or once closed). */
  acquire(): Promise<void>;
  release(): void;
  /** One answer of the core: `trouble` for a 5xx, 429, reset, refused connection or timeout. */
  answer(trouble: boolean): void;
  /** Wakes every waiter and lets all further acquires through (the run is stopping). */
  close(): void;
}

export function createAdaptiveConcurrency(options: AdaptiveConcurrencyOptions): AdaptiveConcurrency {
  const max = Math.max(1, Math.floor(options.max));
  const min = Math.min(max, Math.max(1, Math.floor(options.min ?? 1)));
  const minWindow = Math.max(1, options.minWindow ?? 20);
  const backOffAbove = options.backOffAbove ?? 0.1;
  const climbAtOrBelow = options.climbAtOrBelow ?? 0.02;
  const decrease = options.decrease ?? 0.7;
  let limit = Math.min(max, Math.max(min, Math.floor(options.start ?? max)));
  let inFlight = 0;
  let closed = false;
  let answers = 0;
  let troubles = 0;
  const waiters: Array<() => void> = [];

  const wake = (): void => {
    while (waiters.length > 0 && (closed || inFlight < limit)) {
      inFlight += 1;
      waiters.shift()!();
    }
  };

  const change = (next: number, reason: string): void => {
    if (next === limit) return;
    limit = next;
    options.onChange?.({ limit, max, reason });
    wake();
  };

  return {
    get limit() {
      return limit;
    },
    max,
    get inFlight() {
      return inFlight;
    },
    acquire() {
      if (closed || (inFlight < limit && waiters.length === 0)) {
        inFlight += 1;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    release() {
      inFlight = Math.max(0, inFlight - 1);
      wake();
    },
    answer(trouble) {
      answers += 1;
      if (trouble) troubles += 1;
      // A window spans about two rounds of the requests in flight: the answers to one setting, not the last one's.
      if (answers < Math.max(minWindow, 2 * limit)) return;
      const share = troubles / answers;
      const what = `${troubles} of ${answers} answers were 5xx, resets or timeouts`;
      answers = 0;
      troubles = 0;
      if (share > backOffAbove && limit > min) change(Math.max(min, Math.min(limit - 1, Math.floor(limit * decrease))), what);
      else if (share <= climbAtOrBelow && limit < max) change(limit + 1, what);
    },
    close() {
      closed = true;
      wake();
    },
  };
}
