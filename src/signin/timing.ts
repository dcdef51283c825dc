// Keeps a wrong password as slow for a user whose legacy hash is waiting as for one without: every answer that is
// not a migration waits until at least as long as a legacy check has recently taken (an exponentially weighted
// average of the checks this process ran, never less than a floor). Waiting costs no CPU.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export class TimingPad {
  private average: number;

  constructor(private readonly floorMs: number) {
    this.average = floorMs;
  }

  /** A legacy check took `ms`: folded into the average (weight 1/8). */
  observe(ms: number): void {
    this.average += (ms - this.average) / 8;
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
