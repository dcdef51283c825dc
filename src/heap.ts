// A full garbage collection between the phases of a long command (validation, loading a journal, migrating).
// The phase before leaves large structures behind (the duplicate tables of the validation pass, the text of a
// journal): V8 collects them only when the old generation reaches a limit it set from the heap of the last full
// collection, so without one here the next phase first fills that room with garbage, and the dead tables' typed
// arrays stay resident meanwhile. One collection at a phase boundary costs tens of milliseconds.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * Phases over fewer records than this make no full collection: what they leave is a few tens of MB at most (a
 * 20,000-user staged run's heap stayed under 50 MB, --trace-gc), and each collection takes 15-45 ms of the run.
 */
const COLLECT_FROM = 50_000;

/** A full collection after a phase over `records` records (users, journal lines), when it can pay. */
export function collectAfter(records: number): void {
  if (records >= COLLECT_FROM) collectGarbage();
}

export function collectGarbage(): void {
  if (gc === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') gc = exposed;
    else {
      // The documented way to reach V8's gc() without starting node with --expose-gc: a new context gets it.
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
  }
  gc();
}
