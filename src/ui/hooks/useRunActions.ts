// The wizard's run actions (run screen): start the run (or the sync the plan screen chose, sync-actions.ts), feed
// its events to the screen about ten times a second, answer its question before a real core is written, pause,
// resume and stop it. At most one run goes at a time; `stopAll` ends it (and its question) for quit.
import { useMemo, useRef } from 'react';
import type { RunOperationEvent } from '../../operations/events.js';
import type { RunHandle } from '../services/types.js';
import { message, migrationInput, UPDATE_INTERVAL_MS, type ActionContext } from './action-context.js';
import { startRunOrSync } from './sync-actions.js';

export interface RunActions {
  run(): void;
  /** The answer to the run's question before a real core is written (`y`, or `esc`). */
  answerConfirm(ok: boolean): void;
  togglePause(): void;
  stopRun(): void;
}

export function useRunActions(ctx: ActionContext): RunActions & { stopAll(): Promise<void> } {
  const runHandle = useRef<RunHandle | undefined>(undefined);
  const answer = useRef<((ok: boolean) => void) | undefined>(undefined);
  return useMemo(() => {
    const { d, latest } = ctx;
    return {
      run: () => startRun(ctx, runHandle, answer),
      answerConfirm: (ok) => {
        const resolve = answer.current;
        answer.current = undefined;
        resolve?.(ok);
      },
      togglePause: () => {
        const h = runHandle.current;
        if (!h) return;
        if (latest.current.run.status === 'paused') h.resume();
        else if (latest.current.run.status === 'running') h.pause();
      },
      stopRun: () => {
        const h = runHandle.current;
        if (!h) return;
        d({ type: 'run-stopping' });
        answer.current?.(false);
        h.stop();
      },
      stopAll: async () => {
        answer.current?.(false);
        runHandle.current?.stop();
        await runHandle.current?.done.catch(() => undefined);
      },
    };
  }, [ctx]);
}

/** Start the run or sync unless one goes already; its events reach the screen in batches, its end once. */
function startRun(
  { services, d, latest, target }: ActionContext,
  runHandle: { current: RunHandle | undefined },
  answer: { current: ((ok: boolean) => void) | undefined },
): void {
  const t = target();
  const profile = latest.current.profile;
  if (!t || !profile || runHandle.current) return;
  d({ type: 'run-started', at: Date.now() });
  let pending: RunOperationEvent[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const events = pending;
    pending = [];
    d({ type: 'run-events', events });
  };
  const timer = setInterval(flush, UPDATE_INTERVAL_MS);
  const end = () => {
    clearInterval(timer);
    flush();
    runHandle.current = undefined;
    answer.current = undefined;
  };
  try {
    const handle = startRunOrSync(
      services,
      latest.current,
      migrationInput(latest.current),
      t,
      {
        profileName: profile.name,
        onEvent: (e) => pending.push(e),
        // The question waits for `y` or `esc` on the run screen; the operation writes nothing meanwhile.
        confirm: () =>
          new Promise<boolean>((resolve) => {
            answer.current = resolve;
            flush();
          }),
      },
      d,
    );
    runHandle.current = handle;
    handle.done.then(
      (outcome) => {
        end();
        if (outcome.refusal?.code === 'not-confirmed') d({ type: 'run-cancelled', text: outcome.refusal.message });
        else d({ type: 'run-finished', outcome });
      },
      (err: unknown) => {
        end();
        d({ type: 'run-failed', error: message(err) });
      },
    );
  } catch (err) {
    end();
    d({ type: 'run-failed', error: message(err) });
  }
}
