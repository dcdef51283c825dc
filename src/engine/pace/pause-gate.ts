// Pause and resume of a running migration, shared by the per-user runner and the staged one: workers await `gate`
// between users (and steps); pause() closes it, resume() opens it again; each emits its event once.
// Invariant: a pause while paused, or a resume while running, changes nothing and tells nothing: each change is told
// once.
import type { RunEventListener } from '../events.js';
import type { MigrationRun, RunSummary } from '../runner.js';

export class PauseGate {
  paused = false;
  gate: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;

  constructor(private readonly emit: RunEventListener) {}

  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.gate = new Promise((resolve) => (this.wake = resolve));
    this.emit({ type: 'paused', at: Date.now() });
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.wake?.();
    this.gate = Promise.resolve();
    this.emit({ type: 'resumed', at: Date.now() });
  }
}

/** The handle a runner gives out: its result, pause and resume through the gate (not once stopping), and stop. */
export function migrationRun(done: Promise<RunSummary>, pauses: PauseGate, stopping: () => boolean, stop: () => void): MigrationRun {
  return {
    done,
    get paused() {
      return pauses.paused;
    },
    pause() {
      if (!stopping()) pauses.pause();
    },
    resume() {
      pauses.resume();
    },
    stop,
  };
}
