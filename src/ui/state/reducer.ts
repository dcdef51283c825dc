// The wizard's state machine: a pure reducer, unit-tested without rendering anything. It hands each screen's
// actions to that screen's cases (profile-, preview-, plan-, run-, results-cases.ts; sync.ts for the sync) and
// keeps here only the moves between screens, which every screen shares.
import type { Action, Step, WizardState } from './types.js';
import { isSyncAction, syncReducer } from './sync.js';
import { isProfileAction, profileCases } from './profile-cases.js';
import { isPreviewAction, previewCases } from './preview-cases.js';
import { isPlanAction, planCases } from './plan-cases.js';
import { isRunAction, runCases } from './run-cases.js';
import { isResultsAction, resultsCases } from './results-cases.js';

export { initialState } from './initial.js';
export { PREVIEW_ROW_LIMIT, filterRows, visibleRows } from './preview-cases.js';
export { SIGN_IN_RESULTS } from './results-cases.js';

/** Where `esc` leads from each step; a running migration cannot be left (stop it with `q`). */
const BACK: Record<Step, Step | undefined> = {
  profile: undefined,
  keys: 'profile',
  source: 'keys',
  preview: 'source',
  target: 'preview',
  plan: 'target',
  run: undefined,
  results: 'plan',
};

export function reducer(state: WizardState, action: Action): WizardState {
  if (isSyncAction(action)) return { ...state, sync: syncReducer(state.sync, action) };
  if (isProfileAction(action)) return profileCases(state, action);
  if (isPreviewAction(action)) return previewCases(state, action);
  if (isPlanAction(action)) return planCases(state, action);
  if (isRunAction(action)) return runCases(state, action);
  if (isResultsAction(action)) return resultsCases(state, action);
  switch (action.type) {
    case 'go':
      return { ...state, step: action.step, notice: undefined };
    case 'back': {
      const to = BACK[state.step];
      if (state.preview.detail !== undefined && state.step === 'preview') {
        return { ...state, preview: { ...state.preview, detail: undefined, spotCheck: { status: 'idle' } } };
      }
      if (state.signIn.open && state.step === 'results') return { ...state, signIn: { ...state.signIn, open: false } };
      return to ? { ...state, step: to, notice: undefined } : state;
    }
    case 'notice':
      return { ...state, notice: { kind: action.kind, text: action.text } };
  }
}
