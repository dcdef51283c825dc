// The reducer's cases for the profile and keys screens: the list of profiles, the profile opened (a fresh wizard
// around it), its edits and the secrets typed. A profile opened never carries state over from the one before.
import { actionsNamed, type ActionsNamed } from './action-groups.js';
import { initialState } from './initial.js';
import type { WizardState } from './types.js';

const PREFIXES = ['profiles', 'profile', 'secret'] as const;
export type ProfileAction = ActionsNamed<(typeof PREFIXES)[number]>;
export const isProfileAction = actionsNamed(PREFIXES);

export function profileCases(state: WizardState, action: ProfileAction): WizardState {
  switch (action.type) {
    case 'profiles-loaded':
      return { ...state, profiles: { status: 'done', value: action.profiles } };
    case 'profiles-failed':
      return { ...state, profiles: { status: 'failed', error: action.error } };
    case 'profile-opened':
      return {
        ...initialState(),
        profiles: state.profiles,
        step: 'keys',
        profile: action.loaded.profile,
        secrets: action.loaded.secrets,
        missingSecrets: action.loaded.missing,
        ...(action.loaded.signInSecret !== undefined ? { signInSecret: action.loaded.signInSecret } : {}),
      };
    case 'profile-updated':
      return { ...state, profile: action.profile, save: { status: 'idle' } };
    case 'secret-typed': {
      const missingSecrets = state.missingSecrets.filter((n) => n !== action.name);
      if (action.name === 'signInSecret') return { ...state, signInSecret: action.value, missingSecrets };
      const secrets = { ...state.secrets };
      if (action.value === '') delete secrets[action.name];
      else secrets[action.name] = action.value;
      return { ...state, secrets, missingSecrets };
    }
  }
}
