// The canonical fixture migrated into a real sandbox by the wizard's own services, and the wizard state of its
// results screen: the starting point of the results-screen tests (sign-in check, undo).
import { expect } from 'vitest';
import { emptyProfile } from '../../src/profiles/index.js';
import type { WizardInput, SandboxHandle, TargetConnection, WizardServices } from '../../src/ui/services/types.js';
import { initialState, reducer } from '../../src/ui/state/reducer.js';
import type { Action, WizardState } from '../../src/ui/state/types.js';
import { API_KEY, CANONICAL, LICENSE_KEY, SIGNER_KEY } from '../support/fixture.js';

export async function migrated(
  services: WizardServices,
  opts: { store: string; signerKey?: string; track: (s: SandboxHandle) => void },
): Promise<{ state: WizardState; target: TargetConnection }> {
  const s = await services.startSandbox({
    store: opts.store || undefined,
    apiKey: API_KEY,
    licenseKey: LICENSE_KEY,
    signerKey: opts.signerKey,
  });
  opts.track(s);
  const target: TargetConnection = { url: s.url, apiKey: API_KEY, licenseKey: LICENSE_KEY, sandbox: { storePath: s.storePath } };
  const input: WizardInput = { sources: [{ path: CANONICAL, format: 'canonical' }], signerKey: SIGNER_KEY };
  const outcome = await services.run(input, target, { profileName: 'night', onEvent: () => undefined, confirm: async () => false }).done;
  expect(outcome.totals.imported).toBe(6);
  const actions: Action[] = [
    { type: 'profile-opened', loaded: { profile: { ...emptyProfile('night'), sources: input.sources }, secrets: {}, missing: [] } },
    { type: 'target-ready', target },
    { type: 'run-started', at: Date.now() },
    { type: 'run-finished', outcome },
  ];
  return { state: actions.reduce(reducer, initialState()), target };
}
