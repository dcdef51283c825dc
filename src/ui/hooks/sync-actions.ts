// The wizard's sync actions (the plan screen's `s` and `m`), and the choice the run action makes between a run and
// a sync: kept apart from useWizardController so the controller only hooks them in.
import type { RunOperationEvent } from '../../operations/events.js';
import type { SyncOperationEvent } from '../../operations/sync.js';
import type { Confirmation } from '../../operations/confirm.js';
import type { WizardInput, RunHandle, TargetConnection, WizardServices } from '../services/types.js';
import type { Action, WizardState } from '../state/types.js';

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export interface SyncActions {
  /** Sync instead of run (offered when this profile ran into this core before): the delta is previewed. */
  toggleSync(): void;
  /** Remove the users the export no longer has (only those the migration created, unchanged since). */
  toggleRemoveMissing(): void;
}

export function syncActions(
  services: WizardServices,
  d: (a: Action) => void,
  latest: { current: WizardState },
  target: () => TargetConnection | undefined,
  inputOf: (state: WizardState) => WizardInput,
): SyncActions & { offer(): Promise<void> } {
  let asked = 0; // only the latest preview asked for reaches the screen
  // The choice is passed in: the state read through `latest` is the one before this key's dispatch has rendered.
  const preview = async (choice = latest.current.sync) => {
    const t = target();
    const sync = services.sync;
    if (!t || !sync || !choice.on) return;
    const mine = ++asked;
    d({ type: 'sync-preview-started' });
    try {
      const profileName = latest.current.profile?.name ?? 'wizard';
      const view = await sync.preview(inputOf(latest.current), t, { removeMissing: choice.removeMissing, profileName });
      if (mine === asked) d({ type: 'sync-preview-ready', preview: view });
    } catch (err) {
      if (mine === asked) d({ type: 'sync-preview-failed', error: message(err) });
    }
  };
  return {
    toggleSync: () => {
      const s = latest.current.sync;
      if (!s.offer) return;
      d({ type: 'sync-toggled' });
      void preview({ ...s, on: !s.on });
    },
    toggleRemoveMissing: () => {
      const s = latest.current.sync;
      d({ type: 'sync-remove-missing' });
      void preview({ ...s, removeMissing: !s.removeMissing });
    },
    offer: async () => {
      const t = target();
      if (!t || !services.sync) return;
      const offer = await services.sync.offer(inputOf(latest.current), t).catch(() => undefined);
      d({ type: 'sync-offered', ...(offer ? { offer } : {}) });
      if (offer) await preview();
    },
  };
}

/** The run screen's operation: the sync when the operator chose it on the plan screen, else the run. */
export function startRunOrSync(
  services: WizardServices,
  state: WizardState,
  input: WizardInput,
  t: TargetConnection,
  o: { profileName: string; onEvent: (e: RunOperationEvent) => void; confirm: (c: Confirmation) => Promise<boolean> },
  d: (a: Action) => void,
): RunHandle {
  if (!state.sync.on || !services.sync) return services.run(input, t, o);
  const handle = services.sync.start(input, t, {
    ...o,
    removeMissing: state.sync.removeMissing,
    // The delta is on the plan screen already; the rest are the run's own events.
    onEvent: (e: SyncOperationEvent) => void (e.type === 'sync-delta' ? undefined : o.onEvent(e)),
  });
  return {
    ...handle,
    done: handle.done.then((outcome) => {
      d({ type: 'sync-finished', applied: outcome.applied, nothingChanged: outcome.nothingChanged === true });
      return outcome;
    }),
  };
}
