// How many users a run migrates at once, adapted to how the core answers (issue 20): additive increase,
// multiplicative decrease over windows of answers. A core that answers 5xx, resets connections or times out
// (the reference core's in-memory storage under lock contention) gets fewer requests at once; clean answers
// let the run climb back, never above the operator's --concurrency. Trouble that cutting does not reduce (a core
// failing a steady share of requests at any load, like the sandbox's fault modes) is learnt as the noise level
// and no longer cuts. The runner asks for a slot per user; the core client reports every attempt's outcome
// (CoreClient.observe).
// Invariant: the limit stays between 1 and the operator's --concurrency.

export interface AdaptiveConcurrencyOptions {
  /** The operator's --concurrency: the limit never goes above it (and starts there). */
  max: number;
  /** Never below this (default 1). */
  min?: number;
  /** Where the limit starts (default max: a clean core runs exactly as before). */
  start?: number;
  /** Answers per window at the least (default 40); a window is at least twice the current limit. */
  minWindow?: number;
  /** Share of troubled answers in a window above which the limit is cut (default 0.2: each costs a retry). */
  backOffAbove?: number;
  /** Share at or below which the limit climbs by one (default 0.05; higher once noise is learnt). */
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

/** The options with their defaults, the bounds made whole numbers and the start kept within them. */
function settingsOf(options: AdaptiveConcurrencyOptions) {
  const max = Math.max(1, Math.floor(options.max));
  const min = Math.min(max, Math.max(1, Math.floor(options.min ?? 1)));
  return {
    max,
    min,
    minWindow: Math.max(1, options.minWindow ?? 40),
    climbAtOrBelow: options.climbAtOrBelow ?? 0.05,
    decrease: options.decrease ?? 0.7,
    backOffAbove: options.backOffAbove ?? 0.2,
    start: Math.min(max, Math.max(min, Math.floor(options.start ?? max))),
  };
}

export function createAdaptiveConcurrency(options: AdaptiveConcurrencyOptions): AdaptiveConcurrency {
  const { max, min, minWindow, climbAtOrBelow, decrease, start, backOffAbove: backOffAtFirst } = settingsOf(options);
  /** Trouble above this share cuts the limit; raised to the noise level once cuts are seen not to help. */
  let backOffAbove = backOffAtFirst;
  let limit = start;
  let inFlight = 0;
  let closed = false;
  let answers = 0;
  let troubles = 0;
  /** The cuts in progress: where they started and the share that started them. */
  let cutting: { from: number; share: number } | undefined;
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

  /** One window of answers at the current limit. */
  const judge = (share: number, what: string): void => {
    if (share <= backOffAbove) {
      cutting = undefined; // the cuts (if any) helped: stay, and climb while answers are clean
      if (share <= Math.max(climbAtOrBelow, backOffAbove / 1.3 - 0.05) && limit < max) change(limit + 1, what);
      return;
    }
    // Trouble as high as before with the limit cut to the minimum: it does not come from the load (a core failing a
    // steady share of requests whatever the concurrency). Back to where the cuts began, and only trouble above this
    // level cuts from now on. (Lock contention eases only near the bottom: the reference's in-memory storage fails
    // about as often at 16 as at 64.)
    if (cutting && limit === min && share >= 0.7 * cutting.share) {
      backOffAbove = Math.min(0.9, share * 1.3);
      const from = cutting.from;
      cutting = undefined;
      change(from, `${what} at ${limit} as at ${from}: not caused by the load`);
      return;
    }
    if (limit <= min) return;
    cutting ??= { from: limit, share };
    change(Math.max(min, Math.min(limit - 1, Math.floor(limit * decrease))), what);
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
      // Users started under a higher limit are still finishing: their answers say nothing of this one yet.
      if (inFlight > limit) {
        answers = 0;
        troubles = 0;
        return;
      }
      answers += 1;
      if (trouble) troubles += 1;
      // A window spans about two rounds of the requests in flight: the answers to one setting, not the last one's.
      if (answers < Math.max(minWindow, 2 * limit)) return;
      const what = `${troubles} of ${answers} answers were 5xx, resets or timeouts`;
      const share = troubles / answers;
      answers = 0;
      troubles = 0;
      judge(share, what);
    },
    close() {
      closed = true;
      wake();
    },
  };
}
