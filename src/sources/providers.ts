// Provider ids of the sources (Firebase `google.com`, Auth0 `google-oauth2`, ...) to the core's third-party ids.
export const DEFAULT_PROVIDER_MAP: Record<string, string> = {
  'google.com': 'google',
  'facebook.com': 'facebook',
  'github.com': 'github',
  'apple.com': 'apple',
  'twitter.com': 'twitter',
  'microsoft.com': 'microsoft',
  'yahoo.com': 'yahoo',
  'gc.apple.com': 'apple',
  'playgames.google.com': 'google',
  'google-oauth2': 'google',
  facebook: 'facebook',
  github: 'github',
  apple: 'apple',
  twitter: 'twitter',
  windowslive: 'microsoft',
  waad: 'microsoft',
  linkedin: 'linkedin',
  gitlab: 'gitlab',
  bitbucket: 'bitbucket',
  discord: 'discord',
  // Supabase provider names and Keycloak's default identity provider aliases.
  google: 'google',
  microsoft: 'microsoft',
  azure: 'microsoft',
  linkedin_oidc: 'linkedin',
  'linkedin-openid-connect': 'linkedin',
};

export type ProviderLookup = (sourceProviderId: string) => string | undefined;

/** A lookup over the defaults with the operator's overrides on top. */
export function providerLookup(overrides: Record<string, string> = {}): ProviderLookup {
  const map = { ...DEFAULT_PROVIDER_MAP, ...overrides };
  return (id) => (Object.prototype.hasOwnProperty.call(map, id) ? map[id] : undefined);
}
