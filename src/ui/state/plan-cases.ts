// The reducer's cases for the target and plan screens: the connection, its preflight, the plan, and the plan
// screen's switches (dry run, allow partial). A new connection drops the preflight and plan of the one before.
import { actionsNamed, type ActionsNamed } from './action-groups.js';
import type { WizardState } from './types.js';

const PREFIXES = ['target', 'preflight', 'plan', 'dry-run', 'allow'] as const;
export type PlanAction = ActionsNamed<(typeof PREFIXES)[number]>;
export const isPlanAction = actionsNamed(PREFIXES);

export function planCases(state: WizardState, action: PlanAction): WizardState {
  switch (action.type) {
    case 'target-started':
      return { ...state, target: { status: 'running' }, preflight: { status: 'idle' }, plan: { status: 'idle' } };
    case 'target-ready':
      return { ...state, target: { status: 'done', value: action.target }, preflight: { status: 'running' } };
    case 'target-failed':
      return { ...state, target: { status: 'failed', error: action.error } };
    case 'target-reset':
      return { ...state, target: { status: 'idle' }, preflight: { status: 'idle' }, plan: { status: 'idle' } };
    case 'preflight-finished':
      return { ...state, preflight: { status: 'done', value: action.result } };
    case 'preflight-failed':
      return { ...state, preflight: { status: 'failed', error: action.error } };
    case 'plan-started':
      return { ...state, plan: { status: 'running' } };
    case 'plan-ready':
      return { ...state, plan: { status: 'done', value: action.plan } };
    case 'plan-failed':
      return { ...state, plan: { status: 'failed', error: action.error } };
    case 'dry-run-shown':
      return { ...state, dryRun: !state.dryRun };
    case 'allow-partial':
      return { ...state, allowPartial: action.allow };
  }
}
