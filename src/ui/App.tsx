// The wizard's root: owns the state and the exit, and switches on the step. Screens do the rest.
import { useEffect } from 'react';
import { WizardContext } from './context.js';
import { KeyboardProvider, useKeystroke } from './keys/keyboard.js';
import { useTerminalSize } from './hooks/useTerminalSize.js';
import { useWizardController } from './hooks/useWizardController.js';
import { KeysScreen } from './screens/KeysScreen.js';
import { PlanScreen } from './screens/PlanScreen.js';
import { PreviewScreen } from './screens/PreviewScreen.js';
import { ProfileScreen } from './screens/ProfileScreen.js';
import { ResultsScreen } from './screens/ResultsScreen.js';
import { RunScreen } from './screens/RunScreen.js';
import { SourceScreen } from './screens/SourceScreen.js';
import { TargetScreen } from './screens/TargetScreen.js';
import type { WizardServices } from './services/types.js';
import type { Step, WizardState } from './state/types.js';

export interface AppProps {
  services: WizardServices;
  /** `--profile NAME`: open this profile at once. */
  profile?: string;
  initialState?: WizardState;
}

function Screen({ step }: { step: Step }) {
  switch (step) {
    case 'profile':
      return <ProfileScreen />;
    case 'keys':
      return <KeysScreen />;
    case 'source':
      return <SourceScreen />;
    case 'preview':
      return <PreviewScreen />;
    case 'target':
      return <TargetScreen />;
    case 'plan':
      return <PlanScreen />;
    case 'run':
      return <RunScreen />;
    case 'results':
      return <ResultsScreen />;
  }
}

export function App(props: AppProps) {
  return (
    <KeyboardProvider>
      <Wizard {...props} />
    </KeyboardProvider>
  );
}

function Wizard({ services, profile, initialState }: AppProps) {
  const { state, actions } = useWizardController(services, initialState);
  const size = useTerminalSize();
  useEffect(() => {
    void actions.refreshProfiles();
    if (profile) void actions.openProfile(profile);
  }, [actions, profile]);
  // Ctrl+C leaves through the same door as `q`: a running migration is stopped safely, the sandbox stopped.
  useKeystroke((input, key) => {
    if (!(key.ctrl && input === 'c')) return false;
    void actions.quit();
    return true;
  });
  return (
    <WizardContext.Provider value={{ state, actions, services, size }}>
      <Screen step={state.step} />
    </WizardContext.Provider>
  );
}
