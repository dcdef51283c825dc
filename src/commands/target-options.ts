// Target options shared by run, verify and the wizard: --core URL or --sandbox [--store], keys (flag, env or
// profile), tenant and app; and connecting to the target (spawning the sandbox when asked).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createCoreClient } from '../core-client/client.js';
import type { CoreClient, RetryInfo, RetryPolicy } from '../core-client/types.js';
import { UsageError } from '../errors.js';
import { loadProfile, type LoadedProfile, type Profile } from '../profiles/index.js';
import { parseHashConfig, SOURCE_FORMATS, STDIN, type ReadOptions, type SourceFormat } from '../sources/index.js';
import { startSandbox, type RunningSandbox } from '../sandbox/spawn.js';

/** node:util parseArgs definitions of the target options. */
export const TARGET_OPTIONS = {
  core: { type: 'string' },
  sandbox: { type: 'boolean' },
  store: { type: 'string' },
  'api-key': { type: 'string' },
  'license-key': { type: 'string' },
  'signer-key': { type: 'string' },
  tenant: { type: 'string' },
  app: { type: 'string' },
  profile: { type: 'string' },
} as const;

export interface TargetOptionValues {
  core?: string;
  sandbox?: boolean;
  store?: string;
  'api-key'?: string;
  'license-key'?: string;
  'signer-key'?: string;
  tenant?: string;
  app?: string;
  profile?: string;
}

export type SecretFlag = 'api-key' | 'license-key' | 'signer-key';

/** Environment variables read for each secret (and named in printed commands instead of the value). */
export const SECRET_ENV: Record<SecretFlag, string> = {
  'api-key': 'AUTH_MIGRATE_API_KEY',
  'license-key': 'AUTH_MIGRATE_LICENSE_KEY',
  'signer-key': 'AUTH_MIGRATE_SIGNER_KEY',
};

export interface TargetSecrets {
  apiKey?: string;
  licenseKey?: string;
  signerKey?: string;
}

export type Target =
  { kind: 'sandbox'; store: string; tenant?: string; app?: string } | { kind: 'remote'; url: string; tenant?: string; app?: string };

export interface ResolvedTarget {
  target: Target;
  secrets: TargetSecrets;
  profile?: LoadedProfile;
}

/** The sandbox store used when --sandbox has no --store: fixed, so the same command resumes on the same store. */
export const DEFAULT_SANDBOX_STORE = 'auth-migrate-sandbox.json';

type Env = NodeJS.ProcessEnv;

export async function resolveTarget(values: TargetOptionValues, env: Env, cwd: string = process.cwd()): Promise<ResolvedTarget> {
  const profile = values.profile !== undefined ? await loadProfile(values.profile, env) : undefined;
  const pick = (flag: SecretFlag, fromProfile: string | undefined): string | undefined =>
    nonEmpty(values[flag]) ?? nonEmpty(env[SECRET_ENV[flag]]) ?? nonEmpty(fromProfile);
  const secrets: TargetSecrets = {
    apiKey: pick('api-key', profile?.secrets.apiKey),
    licenseKey: pick('license-key', profile?.secrets.licenseKey),
    signerKey: pick('signer-key', profile?.secrets.signerKey),
  };
  if (values.core !== undefined && values.sandbox) throw new UsageError('give either --core URL or --sandbox, not both');
  if (values.store !== undefined && values.core !== undefined)
    throw new UsageError('--store goes with --sandbox (the sandbox store file), not with --core');
  const pTarget = profile?.profile.target;
  const tenant = values.tenant ?? (pTarget?.kind === 'remote' ? pTarget.tenant : undefined);
  const app = values.app ?? (pTarget?.kind === 'remote' ? pTarget.app : undefined);
  let target: Target;
  if (values.core !== undefined) target = { kind: 'remote', url: values.core, tenant, app };
  else if (values.sandbox || values.store !== undefined)
    target = { kind: 'sandbox', store: resolve(cwd, values.store ?? DEFAULT_SANDBOX_STORE), tenant, app };
  else if (pTarget?.kind === 'remote') target = { kind: 'remote', url: pTarget.url, tenant, app };
  else if (pTarget?.kind === 'sandbox')
    target = { kind: 'sandbox', store: resolve(cwd, pTarget.store ?? DEFAULT_SANDBOX_STORE), tenant, app };
  else throw new UsageError('say where to migrate: --core URL (a running core) or --sandbox (a local rehearsal core)');
  if (target.kind === 'remote' && !/^https?:\/\//.test(target.url)) {
    throw new UsageError(`--core "${target.url}" must be a URL such as http://localhost:3567`);
  }
  return { target, secrets, profile };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

/** The run identity's target: stable across reruns of the same command (the sandbox's port is not). */
export function describeTarget(target: Target): string {
  const where = target.kind === 'sandbox' ? `sandbox:${target.store}` : target.url.replace(/\/+$/, '');
  return `${where} tenant=${target.tenant ?? 'public'} app=${target.app ?? 'public'}`;
}

export interface ConnectOptions {
  concurrency?: number;
  onRetry?: (info: RetryInfo) => void;
  retry?: RetryPolicy;
  /** Called once the sandbox listens (to print its URL and store path). */
  onSandbox?: (sandbox: RunningSandbox) => void;
}

export interface Connection {
  client: CoreClient;
  sandbox?: RunningSandbox;
  /** Closes the client and stops a spawned sandbox. */
  close(): Promise<void>;
}

/**
 * Retries sized for long runs: about a minute of backoff before a request gives up, so a core that is
 * restarted (or a network that drops for a while) is waited for rather than ending the run.
 */
export const RUN_RETRY: RetryPolicy = { retries: 20, baseDelayMs: 100, maxDelayMs: 5_000 };

export async function connectTarget(resolved: ResolvedTarget, options: ConnectOptions = {}): Promise<Connection> {
  const { target, secrets } = resolved;
  let sandbox: RunningSandbox | undefined;
  let url: string;
  if (target.kind === 'sandbox') {
    sandbox = await startSandbox({
      store: target.store,
      apiKeys: secrets.apiKey ? [secrets.apiKey] : [],
      licenseKey: secrets.licenseKey,
      signerKey: secrets.signerKey,
      // A terminal's Ctrl-C goes to the whole process group: the run must stop safely while its core lives on.
      ownProcessGroup: true,
    });
    options.onSandbox?.(sandbox);
    url = sandbox.url;
  } else {
    url = target.url;
  }
  const client = createCoreClient({
    url,
    apiKey: secrets.apiKey,
    tenantId: target.tenant,
    appId: target.app,
    retry: options.retry ?? RUN_RETRY,
    onRetry: options.onRetry,
    maxSockets: Math.max(8, (options.concurrency ?? 16) * 2),
  });
  return {
    client,
    sandbox,
    async close() {
      client.close();
      await sandbox?.stop();
    },
  };
}

const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

function shellQuote(arg: string): string {
  return SHELL_SAFE.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line to print (e.g. the resume command): secret values given as flags become
 * `--api-key "$AUTH_MIGRATE_API_KEY"`, so no secret is ever printed.
 */
export function printableCommand(command: string, argv: string[], extra: string[] = []): string {
  const out: string[] = ['auth-migrate', command];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const flag = (Object.keys(SECRET_ENV) as SecretFlag[]).find((f) => arg === `--${f}` || arg.startsWith(`--${f}=`));
    if (flag) {
      out.push(`--${flag}`, `"$${SECRET_ENV[flag]}"`);
      if (arg === `--${flag}`) i += 1;
      continue;
    }
    out.push(shellQuote(arg));
  }
  for (const e of extra) out.push(shellQuote(e));
  return out.join(' ');
}

// ---------------------------------------------------------------------------------------------
// Source files and reader options of run/verify (flags first, then the profile).

export const SOURCE_OPTIONS = {
  format: { type: 'string' },
  'hash-config': { type: 'string' },
  'provider-map': { type: 'string' },
  /** How validation treats users whose hash the core cannot take (read by source-options.ts). */
  'unusable-hashes': { type: 'string' },
} as const;

/** Every reader's format (src/sources/index.ts keeps the one list). */
const FORMATS: readonly SourceFormat[] = SOURCE_FORMATS;

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
    if (!FORMATS.includes(format as SourceFormat)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got "${format}")`);
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
