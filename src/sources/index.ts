// Readers entry point: turn export files (canonical, Firebase, Auth0, TOTP lists) into canonical records,
// streamed, with per-line problems as items and unreadable files as UserErrors.
import type { Problem, SourceRecord } from '../records/types.js';
import { UserError } from '../errors.js';

export type SourceFormat = 'canonical' | 'firebase' | 'auth0' | 'totp';

/** Firebase scrypt parameters (the console's "Password hash parameters"). */
export interface HashConfig {
  signerKey?: string;
  saltSeparator: string;
  rounds: number;
  memCost: number;
}

export interface ReadOptions {
  /** Force one format for every file instead of sniffing. */
  format?: SourceFormat;
  hashConfig?: HashConfig;
  /** Source provider id -> third-party id; merged over DEFAULT_PROVIDER_MAP. */
  providerMap?: Record<string, string>;
}

export type SourceItem = { kind: 'record'; value: SourceRecord } | { kind: 'problem'; problem: Problem };

export const DEFAULT_PROVIDER_MAP: Record<string, string> = {
  'google.com': 'google',
  'facebook.com': 'facebook',
  'github.com': 'github',
  'apple.com': 'apple',
  'twitter.com': 'twitter',
  'microsoft.com': 'microsoft',
  'google-oauth2': 'google',
  facebook: 'facebook',
  github: 'github',
  apple: 'apple',
  twitter: 'twitter',
  windowslive: 'microsoft',
};

/** Several files combine into one set of records. */
export async function* readSources(paths: string[], options: ReadOptions = {}): AsyncIterable<SourceItem> {
  void paths;
  void options;
  throw new UserError('readers are not implemented yet');
}

/** Sniff the first bytes (and the name) of a file. */
export async function detectFormat(path: string): Promise<SourceFormat> {
  throw new UserError(`cannot detect the format of ${path} yet`);
}

/** The console's `hash_config { ... }` block as pasted, or its JSON form. */
export function parseHashConfig(text: string): HashConfig {
  throw new UserError(`hash config parsing is not implemented yet (${text.length} chars)`);
}
