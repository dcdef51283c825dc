// Where an operation writes or reads: the target (a remote core, or the sandbox on a store file) and its keys, as
// the shells resolved them (commands/target-options.ts from flags, the wizard from its screens), the text that
// names it in a journal, and opening a connection to it.
// Invariant: a key is never put into the text that names a target in a journal.
import { createCoreClient } from '../core-client/client.js';
import type { CoreClient, RetryInfo, RetryPolicy } from '../core-client/types.js';
// Profiles (conf, ajv) and the sandbox (execa) are imported when asked for: a run against a core by URL starts
// without loading them (about 250 files; issue 24's staged run against a bare script counts every 0.1 s).
import type { LoadedProfile } from '../profiles/index.js';
import type { RunningSandbox } from '../sandbox/spawn.js';

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
  resolved: Pick<ResolvedTarget, 'target' | 'secrets'> & { jobIntervalMs?: number },
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
      // The sandbox runs its bulk-import job at the interval the run was told (`--job-interval`), as the core would.
      ...(resolved.jobIntervalMs !== undefined ? { bulkImportIntervalSec: resolved.jobIntervalMs / 1000 } : {}),
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
