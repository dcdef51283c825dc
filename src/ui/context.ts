// What every screen can reach: the state, the actions and the terminal size.
import { createContext, useContext } from 'react';
import type { WizardActions } from './hooks/useWizardController.js';
import type { TerminalSize } from './hooks/useTerminalSize.js';
import type { WizardServices } from './services/types.js';
import type { WizardState } from './state/types.js';

export interface WizardContextValue {
  state: WizardState;
  actions: WizardActions;
  services: WizardServices;
  size: TerminalSize;
}

export const WizardContext = createContext<WizardContextValue | undefined>(undefined);

export function useWizard(): WizardContextValue {
  const value = useContext(WizardContext);
  if (!value) throw new Error('useWizard() outside <App>');
  return value;
}
