// The longest the core took lately to answer one of the run's requests (every attempt, CoreClient.observe): what
// the steps path's knowledge of the core takes as the longest a user the core has stamped may take to commit
// (strategies/steps/knowledge.ts), since the reference stamps a user's join time after the request arrived and commits
// it before it answers.
// Invariant: an answer counts for at least `windowMs` after it came (two windows are kept, the one under way and the
// last).

export class RecentLongest {
  /** The longest answer of the window under way, and of the one before (undefined: none came). */
  private current: number | undefined;
  private previous: number | undefined;
  private since: number;

  constructor(
    private readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.since = now();
  }

  add(ms: number): void {
    this.roll();
    if (this.current === undefined || ms > this.current) this.current = ms;
  }

  /** The longest answer of the last `windowMs` at least; undefined when none came in that time. */
  longest(): number | undefined {
    this.roll();
    if (this.current === undefined) return this.previous;
    return this.previous === undefined ? this.current : Math.max(this.current, this.previous);
  }

  private roll(): void {
    const t = this.now();
    if (t - this.since < this.windowMs) return;
    // The window under way becomes the previous one; after two windows without a look, both are gone.
    this.previous = t - this.since < 2 * this.windowMs ? this.current : undefined;
    this.current = undefined;
    this.since = t;
  }
}
