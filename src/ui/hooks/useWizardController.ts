// The wizard's side effects: each action calls a service and dispatches what came back. Nothing here knows how to
// migrate; it only sequences the same modules the headless commands use. The actions are grouped by screen, a hook
// each (use…Actions.ts, sharing action-context.ts); this hook holds the state, joins the groups, and adds the moves
// between screens and quit.
import { useApp } from 'ink';
import { useEffect, useMemo, useReducer, useRef } from 'react';
import { initialState, reducer } from '../state/reducer.js';
import type { Step, WizardState } from '../state/types.js';
import type { WizardServices } from '../services/types.js';
import { useActionContext } from './action-context.js';
import { usePlanActions, type PlanActions } from './usePlanActions.js';
import { useProfileActions, type ProfileActions } from './useProfileActions.js';
import { useRecordsActions, type RecordsActions } from './useRecordsActions.js';
import { useResultsActions, type ResultsActions } from './useResultsActions.js';
import { useRunActions, type RunActions } from './useRunActions.js';
import { useTargetActions, type TargetActions } from './useTargetActions.js';

export { migrationInput } from './action-context.js';
export type { TargetChoice } from './useTargetActions.js';

export interface WizardActions extends ProfileActions, RecordsActions, TargetActions, PlanActions, RunActions, ResultsActions {
  go(step: Step): void;
  back(): void;
  notice(kind: 'info' | 'error', text: string): void;
  quit(): Promise<void>;
}

export function useWizardController(services: WizardServices, initial?: WizardState): { state: WizardState; actions: WizardActions } {
  const [state, dispatch] = useReducer(reducer, initial ?? initialState());
  const { exit } = useApp();
  // Async actions read the latest state through this ref: moved by every action (action-context.ts) and set at each render.
  const latest = useRef(state);
  latest.current = state;
  const ctx = useActionContext(services, dispatch, latest);
  const profile = useProfileActions(ctx);
  const records = useRecordsActions(ctx);
  const targetGroup = useTargetActions(ctx);
  const plan = usePlanActions(ctx);
  const runGroup = useRunActions(ctx);
  const results = useResultsActions(ctx);

  // Each group is memoised on ctx, so the actions change only when the services do.
  const actions = useMemo<WizardActions>(() => {
    const { d } = ctx;
    const { stopSandbox, ...target } = targetGroup; // stopSandbox and stopAll are quit's, not the screens'
    const { stopAll, ...run } = runGroup;
    return {
      ...profile,
      ...records,
      ...target,
      ...plan,
      ...run,
      ...results,
      go: (step) => d({ type: 'go', step }),
      back: () => d({ type: 'back' }),
      notice: (kind, text) => d({ type: 'notice', kind, text }),
      quit: async () => {
        await profile.persist(); // the settings made on this screen too (a target chosen, then q)
        await stopAll();
        await stopSandbox().catch(() => undefined);
        exit();
      },
    };
  }, [ctx, profile, records, targetGroup, plan, runGroup, results, exit]);

  // Each move to another screen keeps the settings made so far, so quitting midway loses nothing. This runs
  // after the render that committed the move, so it saves what the screens last dispatched.
  const step = state.step;
  useEffect(() => {
    if (step !== 'profile') void actions.persist();
  }, [step, actions]);

  return { state, actions };
}
