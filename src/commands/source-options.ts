// The source options of every command that reads exports (validate, run, verify): the parseArgs definitions and
// what they resolve to, flags first, then the environment, then the profile (operations/sources.ts): the files,
// format, hash config, provider map, signer key and the unusable-hash policy.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseUnusableHashPolicy } from '../engine/plan/policies.js';
import { profileFiles, profileReadOptions, withSignerKey } from '../operations/sources.js';
import { SECRET_ENV } from '../operations/target.js';
import type { LoadedProfile, Profile } from '../profiles/index.js';
import type { ValidateOptions } from '../records/validate.js';
import { parseHashConfig, SOURCE_FORMATS, STDIN, type ReadOptions, type SourceFormat } from '../sources/index.js';
import { usage } from './flag-values.js';
import { SOURCE_OPTIONS as READER_OPTIONS } from './target-options.js';

export { normaliseSignerKey } from '../operations/sources.js';

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

export function sourceFiles(positionals: string[], profile: Profile | undefined, cwd: string = process.cwd()): string[] {
  const files = positionals.length > 0 ? positionals.map((f) => (f === STDIN ? f : resolve(cwd, f))) : profileFiles(profile, cwd);
  if (files.length === 0) throw new UsageError('give at least one export file (or a --profile that lists its sources)');
  return files;
}

export async function sourceReadOptions(
  values: { format?: string; 'hash-config'?: string; 'provider-map'?: string },
  profile: Profile | undefined,
  signerKey: string | undefined,
): Promise<ReadOptions & { signerKey?: string }> {
  const options: ReadOptions & { signerKey?: string } = profileReadOptions(profile);
  if (values.format !== undefined) options.format = values.format as SourceFormat;
  if (options.format !== undefined && !SOURCE_FORMATS.includes(options.format))
    throw new UsageError(`--format must be one of ${SOURCE_FORMATS.join(', ')} (got "${options.format}")`);
  if (values['hash-config'] !== undefined) options.hashConfig = parseHashConfig(await readText(values['hash-config'], '--hash-config'));
  if (values['provider-map'] !== undefined) options.providerMap = await providerMap(values['provider-map']);
  if (signerKey) {
    options.signerKey = signerKey;
    if (options.hashConfig) options.hashConfig = { ...options.hashConfig, signerKey: options.hashConfig.signerKey ?? signerKey };
  }
  return options;
}

async function providerMap(path: string): Promise<Record<string, string>> {
  const text = await readText(path, '--provider-map');
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch {
    throw new UsageError(`--provider-map ${path} must be a JSON object such as {"google.com": "google"}`);
  }
  if (!map || typeof map !== 'object' || Array.isArray(map) || Object.values(map).some((v) => typeof v !== 'string')) {
    throw new UsageError(`--provider-map ${path} must map source provider ids to third-party ids (strings)`);
  }
  return map as Record<string, string>;
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
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
  // Left undefined when neither the flags nor the profile choose (it means skip): a run refuses to leave every such
  // user out for a setting nobody chose (operations/partial.ts), as it refuses a missing hash config.
  const unusable = values['unusable-hashes'] ?? profile?.profile.unusableHashes;
  if (unusable !== undefined) options.unusableHashes = usage('--unusable-hashes', () => parseUnusableHashPolicy(unusable));
  return withSignerKey(options, [
    [values['signer-key'], '--signer-key'],
    [env[SECRET_ENV['signer-key']], SECRET_ENV['signer-key']],
    [options.hashConfig?.signerKey, 'the hash config'],
    [profile?.secrets.signerKey, `profile ${profile?.profile.name ?? ''}`],
  ]);
}
