// The source options every command that reads exports shares (validate, run, verify): --format,
// --hash-config, --provider-map and the signer key, resolved from flags, environment and a profile.
import type { LoadedProfile } from '../profiles/index.js';
import type { ReadOptions } from '../sources/index.js';
import type { ValidateOptions } from '../records/validate.js';
import { UsageError } from '../errors.js';
import { parseUnusableHashPolicy } from '../migration/policies.js';
import { SOURCE_OPTIONS as READER_OPTIONS, SECRET_ENV, sourceFiles, sourceReadOptions } from './target-options.js';

/** node:util parseArgs definitions: the reader options plus --signer-key. */
export const SOURCE_OPTIONS = {
  ...READER_OPTIONS,
  'signer-key': { type: 'string' },
} as const;

export interface SourceOptionValues {
  format?: string;
  'hash-config'?: string;
  'provider-map'?: string;
  'signer-key'?: string;
  'unusable-hashes'?: string;
}

export { sourceFiles };

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Standard padded base64 of a signer key given in either alphabet; a UsageError (without the key) if not base64. */
export function normaliseSignerKey(key: string, where: string): string {
  const trimmed = key.trim();
  const body = trimmed.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (!BASE64.test(trimmed) || body.length % 4 === 1) {
    throw new UsageError(
      `the signer key from ${where} is not base64; copy base64_signer_key from the hash parameters of the source project`,
    );
  }
  return body + '='.repeat((4 - (body.length % 4)) % 4);
}

/**
 * Reader and validator options. The signer key comes from --signer-key, else AUTH_MIGRATE_SIGNER_KEY, else
 * the hash config, else the profile; the chosen key overrides the hash config's own.
 */
export async function resolveSourceOptions(
  values: SourceOptionValues,
  env: NodeJS.ProcessEnv,
  profile?: LoadedProfile,
): Promise<ReadOptions & ValidateOptions> {
  const options: ReadOptions & ValidateOptions = await sourceReadOptions(values, profile?.profile, undefined);
  options.unusableHashes = parseUnusableHashPolicy(values['unusable-hashes'] ?? profile?.profile.unusableHashes);
  const candidates: Array<[string | undefined, string]> = [
    [values['signer-key'], '--signer-key'],
    [env[SECRET_ENV['signer-key']], SECRET_ENV['signer-key']],
    [options.hashConfig?.signerKey, 'the hash config'],
    [profile?.secrets.signerKey, `profile ${profile?.profile.name ?? ''}`],
  ];
  const found = candidates.find(([key]) => key !== undefined && key.trim() !== '');
  if (found) {
    const signerKey = normaliseSignerKey(found[0]!, found[1]);
    options.signerKey = signerKey;
    if (options.hashConfig) options.hashConfig = { ...options.hashConfig, signerKey };
  }
  return options;
}
