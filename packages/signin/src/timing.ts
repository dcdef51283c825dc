// Keeps a wrong password as slow for a user whose legacy hash is waiting as for one without: every refusal waits,
// from the start of the sign-in, until at least as long as the slowest recent refusal (a maximum that rises at once
// and decays slowly, never under a floor), so neither "has an entry", "has a cheap algorithm" nor the placeholder's
// cheap bcrypt at the core shows. Waiting costs no CPU.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export class TimingPad {
  private average: number;

  constructor(private readonly floorMs: number) {
    this.average = floorMs;
  }

  /** A refusal took `ms`: the target rises to it at once, and otherwise decays by 5% per check. */
  observe(ms: number): void {
    this.average = Math.max(ms, this.average * 0.95 + ms * 0.05);
  }

  /** The time every non-migrating answer is held to, measured from `started` (performance.now()). */
  get targetMs(): number {
    return Math.max(this.floorMs, this.average);
  }

  async waitFrom(started: number): Promise<void> {
    const left = started + this.targetMs - performance.now();
    if (left > 0) await sleep(left);
  }
}
