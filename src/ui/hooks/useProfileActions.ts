// The wizard's profile actions (profile and keys screens, and the results screen's save): list, open, create,
// duplicate, rename, delete, edit, type a secret, save. Secrets are written only as chosen on the keys screen (the
// profile store applies that choice); a failure is a notice, never a crash.
import { useMemo } from 'react';
import { emptyProfile, type Profile } from '../../profiles/index.js';
import { message, type ActionContext } from './action-context.js';
import type { KeyName } from '../state/types.js';

export interface ProfileActions {
  refreshProfiles(): Promise<void>;
  /** Save the open profile as it stands (secrets only as chosen on the keys screen). */
  persist(): Promise<void>;
  openProfile(name: string): Promise<void>;
  createProfile(name: string): Promise<void>;
  duplicateProfile(from: string, to: string): Promise<void>;
  renameProfile(from: string, to: string): Promise<void>;
  deleteProfile(name: string): Promise<void>;
  updateProfile(profile: Profile): void;
  typeSecret(name: KeyName, value: string): void;
  save(): Promise<void>;
}

export function useProfileActions({ services, d, latest }: ActionContext): ProfileActions {
  return useMemo<ProfileActions>(() => {
    const attempt = async (fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (err) {
        d({ type: 'notice', kind: 'error', text: message(err) });
      }
    };
    const refreshProfiles = async () => {
      try {
        d({ type: 'profiles-loaded', profiles: await services.profiles.list() });
      } catch (err) {
        d({ type: 'profiles-failed', error: message(err) });
      }
    };
    // A change to the list of profiles, then the list the profile screen shows read again.
    const andRefresh = (change: () => Promise<void>) =>
      attempt(async () => {
        await change();
        await refreshProfiles();
      });
    return {
      refreshProfiles,
      // Settings are kept as the operator moves on, so quitting midway loses nothing.
      persist: async () => {
        const { profile, secrets } = latest.current;
        if (!profile) return;
        try {
          await services.profiles.save(profile, secrets);
        } catch (err) {
          d({ type: 'notice', kind: 'error', text: `the profile could not be saved: ${message(err)}` });
        }
      },
      openProfile: (name) => attempt(async () => d({ type: 'profile-opened', loaded: await services.profiles.load(name) })),
      createProfile: (name) =>
        attempt(async () => {
          if ((await services.profiles.list()).some((p) => p.name === name)) throw new Error(`a profile named '${name}' already exists`);
          await services.profiles.save(emptyProfile(name), {});
          await refreshProfiles();
          d({ type: 'profile-opened', loaded: await services.profiles.load(name) });
        }),
      duplicateProfile: (from, to) => andRefresh(() => services.profiles.duplicate(from, to)),
      renameProfile: (from, to) => andRefresh(() => services.profiles.rename(from, to)),
      deleteProfile: (name) => andRefresh(() => services.profiles.remove(name)),
      updateProfile: (profile) => d({ type: 'profile-updated', profile }),
      typeSecret: (name, value) => d({ type: 'secret-typed', name, value }),
      save: async () => {
        const { profile, secrets } = latest.current;
        if (!profile) return;
        d({ type: 'save-started' });
        try {
          await services.profiles.save(profile, secrets);
          d({ type: 'save-finished', path: services.profiles.paths().profiles });
          await refreshProfiles();
        } catch (err) {
          d({ type: 'save-failed', error: message(err) });
        }
      },
    };
  }, [services, d, latest]);
}
