// Where an operation writes or reads: the target (a remote core, or the sandbox on a store file), its keys (flag,
// environment, profile, in that order), the text that names it in a journal, and opening a connection to it.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createCoreClient } from '../core-client/client.js';
import type { CoreClient, RetryInfo, RetryPolicy } from '../core-client/types.js';
import { UsageError } from '../errors.js';
// Profiles (conf, ajv) and the sandbox (execa) are imported when asked for: a run against a core by URL starts
// without loading them (about 250 files; issue 24's staged run against a bare script counts every 0.1 s).
import type { LoadedProfile } from '../profiles/index.js';
import type { RunningSandbox } from '../sandbox/spawn.js';

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
  /** A PEM file of the CA (or the certificate) to trust for an https core. */
  ca?: string;
}

export type SecretFlag = 'api-key' | 'license-key' | 'signer-key';

/** Environment variables read for each secret (a rerun command names them to export, never a value). */
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
  | { kind: 'sandbox'; store: string; tenant?: string; app?: string }
  /** `ca`: the PEM text of --ca, trusted for this core besides the system's (and NODE_EXTRA_CA_CERTS). */
  | { kind: 'remote'; url: string; tenant?: string; app?: string; ca?: string };

export interface ResolvedTarget {
  target: Target;
  secrets: TargetSecrets;
  profile?: LoadedProfile;
}

/** The sandbox store used when --sandbox has no --store: fixed, so the same command resumes on the same store. */
export const DEFAULT_SANDBOX_STORE = 'auth-migrate-sandbox.json';

/** The target and keys of flags, the environment and a profile (`loaded`, or the one `--profile` names). */
export async function resolveTarget(
  values: TargetOptionValues,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
  loaded?: LoadedProfile,
): Promise<ResolvedTarget> {
  const profile =
    loaded ?? (values.profile !== undefined ? await (await import('../profiles/index.js')).loadProfile(values.profile, env) : undefined);
  const secrets = resolveSecrets(values, env, profile);
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
  if (values.ca !== undefined) {
    if (target.kind !== 'remote') throw new UsageError('--ca goes with an https core (--core https://...), not with the sandbox');
    try {
      target.ca = await readFile(resolve(cwd, values.ca), 'utf8');
    } catch (err) {
      throw new UsageError(`--ca ${values.ca}: ${(err as Error).message}`);
    }
  }
  return { target, secrets, profile };
}

/** The keys: a flag, else the AUTH_MIGRATE_* variable, else the profile's. */
export function resolveSecrets(values: TargetOptionValues, env: NodeJS.ProcessEnv, profile?: LoadedProfile): TargetSecrets {
  const pick = (flag: SecretFlag, fromProfile: string | undefined): string | undefined =>
    nonEmpty(values[flag]) ?? nonEmpty(env[SECRET_ENV[flag]]) ?? nonEmpty(fromProfile);
  return {
    apiKey: pick('api-key', profile?.secrets.apiKey),
    licenseKey: pick('license-key', profile?.secrets.licenseKey),
    signerKey: pick('signer-key', profile?.secrets.signerKey),
  };
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
  /** The URL the client speaks to (the sandbox's port when it is one). */
  url: string;
  /** The sandbox this connection spawned or was handed (its store), if the target is one. */
  sandbox?: { url: string; storePath: string };
  /** Closes the client and stops a sandbox this connection spawned. */
  close(): Promise<void>;
}

/**
 * Retries sized for long runs: about a minute of backoff before a request gives up, so a core that is
 * restarted (or a network that drops for a while) is waited for rather than ending the run.
 */
export const RUN_RETRY: RetryPolicy = { retries: 20, baseDelayMs: 100, maxDelayMs: 5_000 };

/** A client of the core at `url` for this target's tenant and app. */
export function clientFor(url: string, target: Target, secrets: TargetSecrets, options: ConnectOptions = {}): CoreClient {
  return createCoreClient({
    url,
    apiKey: secrets.apiKey,
    tenantId: target.tenant,
    appId: target.app,
    retry: options.retry ?? RUN_RETRY,
    onRetry: options.onRetry,
    maxSockets: Math.max(8, (options.concurrency ?? 16) * 2),
    ...(target.kind === 'remote' && target.ca ? { tls: { ca: target.ca } } : {}),
  });
}

/** Connect to the target; a sandbox target spawns the sandbox core on its store (stopped by close()). */
export async function connectTarget(
  resolved: Pick<ResolvedTarget, 'target' | 'secrets'>,
  options: ConnectOptions = {},
): Promise<Connection> {
  const { target, secrets } = resolved;
  let sandbox: RunningSandbox | undefined;
  if (target.kind === 'sandbox') {
    const { startSandbox } = await import('../sandbox/spawn.js');
    sandbox = await startSandbox({
      store: target.store,
      apiKeys: secrets.apiKey ? [secrets.apiKey] : [],
      licenseKey: secrets.licenseKey,
      signerKey: secrets.signerKey,
      // A terminal's Ctrl-C goes to the whole process group: the run must stop safely while its core lives on.
      ownProcessGroup: true,
    });
    options.onSandbox?.(sandbox);
  }
  const url = sandbox?.url ?? (target as { url: string }).url;
  const client = clientFor(url, target, secrets, options);
  return {
    client,
    url,
    ...(sandbox ? { sandbox: { url: sandbox.url, storePath: sandbox.storePath } } : {}),
    async close() {
      client.close();
      await sandbox?.stop();
    },
  };
}
