// What a rollback tells its shell while it goes (the `rollback` command prints lines, the wizard draws them):
// progress of the read-only check and of the undo, and each user kept, removed or failed. Ids only, never a secret.
// Invariant: events name ids and counts, never a secret.
export type RollbackPhase = 'checking' | 'undoing';

export interface RollbackCounts {
  /** Users the run created, removed (and read back gone). */
  removed: number;
  /** Users that were there before, whose additions by the run were taken off. */
  undone: number;
  /** Users changed since the run: left in place. */
  kept: number;
  /** Users the core no longer holds (removed before, by this rollback or otherwise). */
  gone: number;
  failed: number;
}

export type RollbackEvent =
  | ({ type: 'rollback-progress'; phase: RollbackPhase; done: number; total: number; at: number } & RollbackCounts)
  | {
      type: 'rollback-user';
      phase: RollbackPhase;
      user: string;
      outcome: 'removed' | 'undone' | 'kept' | 'failed';
      detail?: string;
      at: number;
    }
  | { type: 'rollback-retired'; journal: string; at: number };

export type RollbackEventListener = (event: RollbackEvent) => void;

export const emptyCounts = (): RollbackCounts => ({ removed: 0, undone: 0, kept: 0, gone: 0, failed: 0 });

/** A progress emitter at most `perSecond` times a second, and always for the last user. */
export function progressEmitter(
  onEvent: RollbackEventListener | undefined,
  phase: RollbackPhase,
  total: number,
  counts: RollbackCounts,
  perSecond = 10,
): (done: number) => void {
  let last = 0;
  return (done) => {
    const now = Date.now();
    if (!onEvent || (done < total && now - last < 1000 / perSecond)) return;
    last = now;
    onEvent({ type: 'rollback-progress', phase, done, total, at: now, ...counts });
  };
}
