// The reducer's cases for the run screen: a run started (verify and sign-in checks of the run before dropped), its
// events folded in (run-events.ts), stopped, cancelled before any write, finished or failed (both lead to results).
import { inWizardWords } from '../wizard-words.js';
import { actionsNamed, type ActionsNamed } from './action-groups.js';
import { closedSignIn } from './initial.js';
import { idleRun, onRunEvent } from './run-events.js';
import type { RunState, WizardState } from './types.js';

const PREFIXES = ['run'] as const;
export type RunAction = ActionsNamed<(typeof PREFIXES)[number]>;
export const isRunAction = actionsNamed(PREFIXES);

export function runCases(state: WizardState, action: RunAction): WizardState {
  switch (action.type) {
    case 'run-started':
      return {
        ...state,
        step: 'run',
        run: { ...idleRun, status: 'preparing', startedAt: action.at },
        verify: { status: 'idle' },
        verifyProgress: undefined,
        signIn: closedSignIn,
      };
    case 'run-events':
      return { ...state, run: action.events.reduce(onRunEvent, state.run) };
    case 'run-stopping':
      return { ...state, run: { ...state.run, status: 'stopping' } };
    case 'run-cancelled':
      return { ...state, step: 'plan', run: idleRun, notice: { kind: 'info', text: action.text } };
    case 'run-finished':
      return { ...state, step: 'results', run: finishedRun(state.run, action.outcome) };
    case 'run-failed':
      return { ...state, step: 'results', run: { ...state.run, status: 'failed', error: action.error } };
  }
}

/** The run as its outcome says it ended: a refusal or an error is said in the wizard's words. */
function finishedRun(before: RunState, outcome: Extract<RunAction, { type: 'run-finished' }>['outcome']): RunState {
  const t = outcome.totals;
  const refusal = outcome.refusal;
  const said = refusal ? [refusal.message, refusal.fix].filter(Boolean).join('; to go on: ') : outcome.error;
  const error = said === undefined ? undefined : inWizardWords(said);
  return {
    ...before,
    confirm: undefined,
    status: error ? 'failed' : 'finished',
    error,
    outcome,
    total: t.total,
    imported: t.imported,
    alreadyPresent: t.alreadyPresent,
    failed: t.failed,
    skipped: t.skipped,
    resumed: t.resumed,
    done: t.imported + t.alreadyPresent + t.failed + t.skipped,
  };
}
