// The wizard's state before anything happened, and the empty slices a reducer case resets to: kept apart from the
// reducer's cases so each screen's cases (…-cases.ts) can reset a slice without importing the reducer.
import type { PreviewState, SignInState, WizardState } from './types.js';
import { idleRun } from './run-events.js';
import { idleSync } from './sync.js';

export const closedSignIn: SignInState = { open: false, running: false, results: [] };
export const emptyPreview: PreviewState = { rows: [], seen: 0, filter: 'all', cursor: 0, spotCheck: { status: 'idle' } };

export function initialState(): WizardState {
  return {
    step: 'profile',
    profiles: { status: 'running' },
    secrets: {},
    missingSecrets: [],
    validation: { status: 'idle' },
    preview: emptyPreview,
    target: { status: 'idle' },
    preflight: { status: 'idle' },
    plan: { status: 'idle' },
    dryRun: false,
    allowPartial: false,
    run: idleRun,
    sync: idleSync,
    verify: { status: 'idle' },
    signIn: closedSignIn,
    save: { status: 'idle' },
  };
}
