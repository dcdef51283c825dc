// The reducer's cases for the results screen: verify and its progress, the sign-in panel and its last few checks
// (never a password: only the outcome is dispatched), and saving the profile.
import { actionsNamed, type ActionsNamed } from './action-groups.js';
import type { WizardState } from './types.js';

/** Sign-in checks kept on the results screen. */
export const SIGN_IN_RESULTS = 3;

const PREFIXES = ['verify', 'sign-in', 'save'] as const;
export type ResultsAction = ActionsNamed<(typeof PREFIXES)[number]>;
export const isResultsAction = actionsNamed(PREFIXES);

export function resultsCases(state: WizardState, action: ResultsAction): WizardState {
  switch (action.type) {
    case 'verify-started':
      return { ...state, verify: { status: 'running' }, verifyProgress: undefined };
    case 'verify-progress':
      return { ...state, verifyProgress: action.progress };
    case 'verify-finished':
      return { ...state, verify: { status: 'done', value: action.summary } };
    case 'verify-failed':
      return { ...state, verify: { status: 'failed', error: action.error } };
    case 'sign-in-open':
      return { ...state, signIn: { ...state.signIn, open: true } };
    case 'sign-in-close':
      return { ...state, signIn: { ...state.signIn, open: false } };
    case 'sign-in-started':
      return { ...state, signIn: { ...state.signIn, running: true } };
    case 'sign-in-finished':
      return {
        ...state,
        signIn: { ...state.signIn, running: false, results: [...state.signIn.results, action.entry].slice(-SIGN_IN_RESULTS) },
      };
    case 'save-started':
      return { ...state, save: { status: 'running' } };
    case 'save-finished':
      return { ...state, save: { status: 'done', value: action.path } };
    case 'save-failed':
      return { ...state, save: { status: 'failed', error: action.error } };
  }
}
