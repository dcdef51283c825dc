// The wizard's results actions (results screen): verify the run against the core (progress about ten times a
// second), undo it (or, after a sync, the sync), and the sign-in panel's checks of one user or a credentials file.
// A password goes to the core and is dropped: it is never dispatched, so never in the state.
import { useMemo } from 'react';
import type { RollbackOutcome, SignInOutcome } from '../services/types.js';
import type { UndoOptions } from '../services/rollback.js';
import { message, migrationInput, NO_TARGET, UPDATE_INTERVAL_MS, type ActionContext } from './action-context.js';

export interface ResultsActions {
  verify(): Promise<void>;
  /** Undo the run (the rollback operation): its decisions, then its question (answered with `y` or `esc`), then progress. */
  rollback(o: UndoOptions): Promise<RollbackOutcome | string>;
  openSignIn(): void;
  closeSignIn(): void;
  /** The password goes to the core and is dropped: it is never dispatched, so never in the state. */
  signIn(email: string, password: string): Promise<void>;
  checkCredentialsFile(path: string): Promise<void>;
}

export function useResultsActions(ctx: ActionContext): ResultsActions {
  return useMemo<ResultsActions>(() => {
    const { services, d, latest, target } = ctx;
    return {
      verify: () => verify(ctx),
      rollback: async (o) => {
        const t = target();
        if (!t) return NO_TARGET;
        try {
          // After a sync, `u` undoes the sync (its own journal), not the first run.
          const syncJournal = latest.current.sync.on ? latest.current.run.outcome?.paths?.journal : undefined;
          if (latest.current.sync.on && !syncJournal) return 'the sync wrote nothing (no journal): there is nothing of it to undo';
          return await services.rollback(migrationInput(latest.current), t, syncJournal ? { ...o, journal: syncJournal } : o);
        } catch (err) {
          return message(err);
        }
      },
      openSignIn: () => d({ type: 'sign-in-open' }),
      closeSignIn: () => d({ type: 'sign-in-close' }),
      signIn: async (email, password) => {
        const t = target();
        if (!t) return d({ type: 'notice', kind: 'error', text: NO_TARGET });
        if (latest.current.signIn.running) return;
        d({ type: 'sign-in-started' });
        let outcome: SignInOutcome;
        try {
          outcome = await services.signIn(t, email, password);
        } catch (err) {
          outcome = { status: 'error', error: message(err) };
        }
        d({ type: 'sign-in-finished', entry: { kind: 'single', email, outcome } });
      },
      checkCredentialsFile: async (path) => {
        const t = target();
        if (!t) return d({ type: 'notice', kind: 'error', text: NO_TARGET });
        if (latest.current.signIn.running) return;
        d({ type: 'sign-in-started' });
        try {
          d({ type: 'sign-in-finished', entry: { kind: 'file', path, result: await services.checkCredentialsFile(t, path) } });
        } catch (err) {
          d({ type: 'sign-in-finished', entry: { kind: 'file-error', path, error: message(err) } });
        }
      },
    };
  }, [ctx]);
}

/** Check every user of the run against the core; the screen hears of progress about ten times a second. */
async function verify({ services, d, latest, target }: ActionContext): Promise<void> {
  const t = target();
  if (!t) return;
  d({ type: 'verify-started' });
  let shown = 0;
  try {
    const summary = await services.verify(migrationInput(latest.current), t, (e) => {
      if (e.type === 'verify-started') d({ type: 'verify-progress', progress: { checked: 0, total: e.total } });
      if (e.type === 'verify-user' && e.at - shown >= UPDATE_INTERVAL_MS) {
        shown = e.at;
        const total = latest.current.verifyProgress?.total ?? 0;
        d({ type: 'verify-progress', progress: { checked: e.counts.total, total } });
      }
    });
    d({ type: 'verify-finished', summary });
  } catch (err) {
    d({ type: 'verify-failed', error: message(err) });
  }
}
