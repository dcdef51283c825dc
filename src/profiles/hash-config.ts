// A profile given hash parameters: the parameters are plain settings; the signer key that came with them is a
// secret, kept where the profile keeps its signer key. When it is kept nowhere yet, it goes to the secrets file
// (0600, separate from the profiles file, never written through a link), so the profile keeps it when reused.
import type { Profile, ProfileHashConfig } from './types.js';

export function withHashConfig(profile: Profile, hashConfig: ProfileHashConfig, signerKey: string | undefined): Profile {
  const keep = signerKey !== undefined && signerKey !== '' && profile.secrets.signerKey.store === 'none';
  return { ...profile, hashConfig, secrets: keep ? { ...profile.secrets, signerKey: { store: 'file' } } : profile.secrets };
}
