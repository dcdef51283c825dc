// Start a sandbox core as a child process on a free port (for rehearsals and tests): secrets travel in the
// environment, never on argv; the child watches a stdin pipe so it never outlives this process.
import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { UserError } from '../errors.js';
import { packageRoot } from '../shared/package-root.js';

export interface StartSandboxOptions {
  /** Store file; when omitted, a new file in a fresh temp folder that stop() deletes. */
  store?: string;
  apiKeys?: string[];
  licenseKey?: string;
  /** base64 signer key of the external scrypt variant. */
  signerKey?: string;
  /** Fault modes (sandbox/faults.ts), e.g. `after=0.05,seed=7`; off when omitted. */
  faults?: string;
  /** Seconds between two rounds of the bulk-import job (`core --bulk-import-interval`). */
  bulkImportIntervalSec?: number;
  /** Staged users the bulk-import job takes at once (`core --bulk-import-batch-size`). */
  bulkImportBatchSize?: number;
  /** A claim of the job lasts a whole number of these milliseconds (`core --bulk-import-claim-ms`). */
  bulkImportClaimMs?: number;
  /** 0 (the default) takes a free port. */
  port?: number;
  /** Extra environment for the child (e.g. the sandbox's hidden test options). */
  env?: Record<string, string>;
  /**
   * Put the child in its own process group, so a Ctrl-C meant for the caller (which stops safely and still
   * needs the core) does not reach the sandbox; it still exits when the caller does (stdin watch) or on stop().
   */
  ownProcessGroup?: boolean;
}

export interface RunningSandbox {
  url: string;
  port: number;
  storePath: string;
  pid: number;
  /** SIGTERM, then wait for the exit (the sandbox flushes its store first); removes an automatic temp store. */
  stop(): Promise<void>;
  /** Send a signal (default SIGKILL) without waiting. */
  kill(signal?: NodeJS.Signals): void;
}

const READY = /^core listening on (http:\/\/[^\s]+)$/;

/** bin/auth-migrate.js, found from the sources (vitest), tsc's build or the bundle. */
export function cliBinPath(): string {
  const bin = join(packageRoot(), 'bin', 'auth-migrate.js');
  if (!existsSync(bin)) throw new UserError(`cannot find the auth-migrate launcher at ${bin}`);
  return bin;
}

export async function startSandbox(opts: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const tempDir = opts.store === undefined ? mkdtempSync(join(tmpdir(), 'auth-migrate-sandbox-')) : undefined;
  const storePath = opts.store ?? join(tempDir!, 'sandbox.json');
  const args = sandboxArgs(opts, storePath);
  const env = sandboxEnv(opts);
  const child = execa(process.execPath, args, {
    env,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    reject: false,
    cleanup: true,
    buffer: false,
    detached: opts.ownProcessGroup ?? false,
    // execa's default SIGKILLs 5 s after stop()'s SIGTERM: a store of a million users takes longer than that to
    // write its final snapshot, and a killed flush (safe: the change log is durable) makes the next start replay the
    // whole log and rewrite the snapshot before serving (far slower than a clean load; docs/benchmarks.md).
    forceKillAfterDelay: 180_000,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < 4000) stderr += chunk;
  });
  const exited = child.then((r) => r);

  const url = await new Promise<string>((resolve, reject) => {
    void exited.then(async () => {
      if (tempDir) await rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
    });
    let pending = '';
    const onData = (chunk: string): void => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        const m = READY.exec(line);
        if (m) {
          child.stdout?.off('data', onData);
          child.stdout?.resume();
          resolve(m[1]!);
          return;
        }
      }
    };
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', onData);
    void exited.then((r) => {
      // The child's own "auth-migrate: " prefix goes: the caller prints its own in front of this message.
      const last = stderr
        .trim()
        .split('\n')
        .pop()
        ?.replace(/^auth-migrate( core)?: /, '');
      const reason = last || `exit code ${String(r.exitCode ?? r.signal)}`;
      reject(new UserError(`the sandbox core did not start: ${reason}`));
    });
  });
  await waitForHello(url).catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw err;
  });

  const port = Number(new URL(url).port);
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    storePath,
    pid: child.pid!,
    kill(signal: NodeJS.Signals = 'SIGKILL') {
      child.kill(signal);
    },
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
        if (tempDir) await rm(tempDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

/** The child's argv: no secret here (they travel in the environment, sandboxEnv). */
function sandboxArgs(opts: StartSandboxOptions, storePath: string): string[] {
  // --reset-license: a rehearsal gets exactly the licence given (none = no licence), whatever the store kept.
  const args = [cliBinPath(), 'core', '--host', '127.0.0.1', '--port', String(opts.port ?? 0), '--store', storePath, '--reset-license'];
  if (opts.bulkImportIntervalSec !== undefined) args.push('--bulk-import-interval', String(opts.bulkImportIntervalSec));
  if (opts.bulkImportBatchSize !== undefined) args.push('--bulk-import-batch-size', String(opts.bulkImportBatchSize));
  if (opts.bulkImportClaimMs !== undefined) args.push('--bulk-import-claim-ms', String(opts.bulkImportClaimMs));
  return args;
}

function sandboxEnv(opts: StartSandboxOptions): Record<string, string> {
  return {
    ...opts.env,
    // Set explicitly (possibly empty, aliases included) so keys of the parent's environment never leak into the child.
    AUTH_MIGRATE_API_KEY: (opts.apiKeys ?? []).join(','),
    API_KEYS: '',
    AUTH_MIGRATE_SIGNER_KEY: opts.signerKey ?? '',
    EXTERNAL_PASSWORD_HASHING_SIGNER_KEY: '',
    FIREBASE_PASSWORD_HASHING_SIGNER_KEY: '',
    AUTH_MIGRATE_LICENSE_KEY: opts.licenseKey ?? '',
    AUTH_MIGRATE_CORE_WATCH_STDIN: '1',
    ...(opts.faults !== undefined ? { AUTH_MIGRATE_SANDBOX_FAULTS: opts.faults } : {}),
  };
}

async function waitForHello(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/hello`);
      if (res.status === 200) return;
      last = res.status;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new UserError(`the sandbox core at ${url} did not answer /hello (${String(last)})`);
}
