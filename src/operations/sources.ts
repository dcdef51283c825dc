// The sources of an operation as a profile names them (validate, run, verify, the wizard alike): the reader and
// validator options a profile chooses (format, hash config, provider map) and the signer key put into them.
// The command line's flags over these are the shell's (commands/source-options.ts): nothing here reads a flag.
// Invariant: nothing here reads a flag.
import { resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { Profile } from '../profiles/index.js';
import { STDIN, type ReadOptions, type SourceFormat } from '../sources/index.js';

/** A profile's export files, absolute (`-` is standard input, not a file named "-" in the current folder). */
export const profileFiles = (profile: Profile | undefined, cwd: string): string[] =>
  (profile?.sources.map((s) => s.path) ?? []).map((f) => (f === STDIN ? f : resolve(cwd, f)));

/** The reader options a profile chooses: the format its sources share, its hash config and provider map. */
export function profileReadOptions(profile: Profile | undefined): ReadOptions {
  const options: ReadOptions = {};
  const first = profile?.sources[0];
  if (first && profile.sources.every((s) => s.format === first.format)) options.format = first.format as SourceFormat;
  if (profile?.hashConfig) {
    const { algorithm, saltSeparator, rounds, memCost } = profile.hashConfig;
    options.hashConfig = { saltSeparator, rounds, memCost, ...(algorithm && algorithm !== 'SCRYPT' ? { algorithm } : {}) };
  }
  if (profile?.providerMap) options.providerMap = profile.providerMap;
  return options;
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Standard padded base64 of a signer key given in either alphabet; a UserError (without the key) if not base64. */
export function normaliseSignerKey(key: string, where: string): string {
  const trimmed = key.trim();
  const body = trimmed.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (!BASE64.test(trimmed) || body.length % 4 === 1) {
    throw new UserError(
      `the signer key from ${where} is not base64; copy base64_signer_key from the hash parameters of the source project`,
    );
  }
  return body + '='.repeat((4 - (body.length % 4)) % 4);
}

/**
 * The first signer key of `candidates` (each with where it came from, in the shell's order) put into the options:
 * it overrides the hash config's own.
 */
export function withSignerKey<T extends ReadOptions & { signerKey?: string }>(
  options: T,
  candidates: Array<[string | undefined, string]>,
): T {
  const found = candidates.find(([key]) => key !== undefined && key.trim() !== '');
  if (!found) return options;
  const signerKey = normaliseSignerKey(found[0]!, found[1]);
  options.signerKey = signerKey;
  if (options.hashConfig) options.hashConfig = { ...options.hashConfig, signerKey };
  return options;
}
