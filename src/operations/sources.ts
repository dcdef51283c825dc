// The sources of an operation (validate, run, verify, the wizard alike): the export files, and the reader and
// validator options from flags, the environment and a profile: format, hash config, provider map, signer key.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseUnusableHashPolicy } from '../migration/policies.js';
import type { LoadedProfile, Profile } from '../profiles/index.js';
import type { ValidateOptions } from '../records/validate.js';
import { parseHashConfig, SOURCE_FORMATS, STDIN, type ReadOptions, type SourceFormat } from '../sources/index.js';
import { SECRET_ENV } from './target.js';

export interface SourceOptionValues {
  format?: string;
  'hash-config'?: string;
  'provider-map'?: string;
  'signer-key'?: string;
  'unusable-hashes'?: string;
}

export function sourceFiles(positionals: string[], profile: Profile | undefined, cwd: string = process.cwd()): string[] {
  const files = positionals.length > 0 ? positionals : (profile?.sources.map((s) => s.path) ?? []);
  if (files.length === 0) throw new UsageError('give at least one export file (or a --profile that lists its sources)');
  // `-` is standard input, not a file named "-" in the current folder.
  return files.map((f) => (f === STDIN ? f : resolve(cwd, f)));
}

export async function sourceReadOptions(
  values: { format?: string; 'hash-config'?: string; 'provider-map'?: string },
  profile: Profile | undefined,
  signerKey: string | undefined,
): Promise<ReadOptions & { signerKey?: string }> {
  const options: ReadOptions & { signerKey?: string } = {};
  const format =
    values.format ??
    (profile && profile.sources.length > 0 && profile.sources.every((s) => s.format === profile.sources[0]!.format)
      ? profile.sources[0]!.format
      : undefined);
  if (format !== undefined) {
    if (!SOURCE_FORMATS.includes(format as SourceFormat))
      throw new UsageError(`--format must be one of ${SOURCE_FORMATS.join(', ')} (got "${format}")`);
    options.format = format as SourceFormat;
  }
  if (values['hash-config'] !== undefined) {
    const text = await readText(values['hash-config'], '--hash-config');
    options.hashConfig = parseHashConfig(text);
  } else if (profile?.hashConfig) {
    const { algorithm, saltSeparator, rounds, memCost } = profile.hashConfig;
    options.hashConfig = { saltSeparator, rounds, memCost, ...(algorithm && algorithm !== 'SCRYPT' ? { algorithm } : {}) };
  }
  if (signerKey) {
    options.signerKey = signerKey;
    if (options.hashConfig) options.hashConfig = { ...options.hashConfig, signerKey: options.hashConfig.signerKey ?? signerKey };
  }
  if (values['provider-map'] !== undefined) {
    const text = await readText(values['provider-map'], '--provider-map');
    let map: unknown;
    try {
      map = JSON.parse(text);
    } catch {
      throw new UsageError(`--provider-map ${values['provider-map']} must be a JSON object such as {"google.com": "google"}`);
    }
    if (!map || typeof map !== 'object' || Array.isArray(map) || Object.values(map).some((v) => typeof v !== 'string')) {
      throw new UsageError(`--provider-map ${values['provider-map']} must map source provider ids to third-party ids (strings)`);
    }
    options.providerMap = map as Record<string, string>;
  } else if (profile?.providerMap) {
    options.providerMap = profile.providerMap;
  }
  return options;
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

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
  // Left undefined when neither the flags nor the profile choose (it means skip): a run refuses to leave every such
  // user out for a setting nobody chose (operations/partial.ts), as it refuses a missing hash config.
  const unusable = values['unusable-hashes'] ?? profile?.profile.unusableHashes;
  if (unusable !== undefined) options.unusableHashes = parseUnusableHashPolicy(unusable);
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
