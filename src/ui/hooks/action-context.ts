// What every group of the wizard's actions shares (the use…Actions hooks): the services, a dispatch that moves the
// latest state at once, the connected target, and the settings the wizard hands the operations. An action reads the
// state through `latest`, never through a render's copy, so two actions in one key press see each other.
import { useMemo, type Dispatch, type MutableRefObject } from 'react';
import { emptyProfile } from '../../profiles/index.js';
import { reducer } from '../state/reducer.js';
import type { Action, WizardState } from '../state/types.js';
import type { WizardInput, TargetConnection, WizardServices } from '../services/types.js';

export interface ActionContext {
  services: WizardServices;
  /** Dispatch: the reducer moves `latest` at once (it is pure), then React renders. */
  d: (a: Action) => void;
  latest: { current: WizardState };
  /** The connected core, if the target screen connected one. */
  target(): TargetConnection | undefined;
}

export const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
export const NO_TARGET = 'no target core is connected: connect one on the target screen';
/** Progress reaches the screen about ten times a second, however fast users finish. */
export const UPDATE_INTERVAL_MS = 100;

export function useActionContext(
  services: WizardServices,
  dispatch: Dispatch<Action>,
  latest: MutableRefObject<WizardState>,
): ActionContext {
  return useMemo<ActionContext>(
    () => ({
      services,
      // The ref moves with each action at once, so an action that follows another in the same handler (change an
      // option, then plan) reads the state the first one made, not the last render's.
      d: (a) => {
        latest.current = reducer(latest.current, a);
        dispatch(a);
      },
      latest,
      target: () => {
        const t = latest.current.target;
        return t.status === 'done' ? t.value : undefined;
      },
    }),
    [services, dispatch, latest],
  );
}

export function migrationInput(state: WizardState): WizardInput {
  const p = state.profile ?? emptyProfile('unnamed');
  return {
    secretStores: p.secrets,
    allowPartial: state.allowPartial,
    sources: p.sources,
    hashConfig: p.hashConfig,
    signerKey: state.secrets.signerKey,
    signInSecret: state.signInSecret,
    providerMap: p.providerMap,
    keepSourceIds: p.keepSourceIds,
    updateExisting: p.updateExisting,
    disabled: p.disabled,
    unusableHashes: p.unusableHashes,
    scryptAlgorithmName: p.scryptAlgorithmName,
    concurrency: p.concurrency,
    via: p.via,
    jobIntervalSec: p.jobIntervalSec,
  };
}
