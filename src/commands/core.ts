// `auth-migrate core`: the sandbox core in the foreground. Prints one ready line, answers until SIGINT or
// SIGTERM (or until the parent that spawned it goes away), then finishes in-flight writes and flushes.
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import envPaths from 'env-paths';
import type { CommandIO } from './io.js';
import { UsageError, UserError } from '../errors.js';
import { isStandardBase64 } from '../hashes/verify.js';
import { createApp } from '../sandbox/app.js';
import { configFromEnv, DEFAULT_BULK_IMPORT_BATCH_SIZE, DEFAULT_BULK_IMPORT_INTERVAL_SEC } from '../sandbox/config.js';
import { startBulkImportJob } from '../sandbox/bulk/job.js';
import { createFaultInjector, FAULTS_ENV, parseFaults } from '../sandbox/faults.js';
import { fileErrorMessage, isFileError } from '../files/errors.js';
import { openStore } from '../sandbox/store/index.js';
import { acquireLock } from '../files/lock.js';

const HELP = `Usage: auth-migrate core [options]

Run the sandbox core (a local stand-in for the reference core) in the foreground.

Options:
  --host HOST          address to listen on (default 127.0.0.1)
  --port PORT          port (default 3567; 0 takes a free port)
  --store FILE         store file (default: the OS data folder, sandbox.json)
  --api-key KEY        require this API key (repeatable; also env AUTH_MIGRATE_API_KEY, comma-separated for
                       several; the older API_KEYS is still read, and all of them are merged)
  --license-key KEY    licence key enabling TOTP, account linking and tenants (also env AUTH_MIGRATE_LICENSE_KEY);
                       stored in the store, as the reference keeps it in its database
  --reset-license      start with exactly the licence of --license-key / AUTH_MIGRATE_LICENSE_KEY, or none: a
                       licence an earlier start or PUT /ee/license stored is dropped (rehearsals spawn it so)
  --signer-key BASE64  signer key of the external scrypt hashes (also env AUTH_MIGRATE_SIGNER_KEY; the older
                       EXTERNAL_PASSWORD_HASHING_SIGNER_KEY and FIREBASE_PASSWORD_HASHING_SIGNER_KEY are still read)
  --faults SPEC        rehearse the reference core's failures (off by default; also env AUTH_MIGRATE_SANDBOX_FAULTS),
                       comma-separated, each RATE from 0 to 1 (docs/sandbox.md, "Fault modes"):
                         before=RATE      a write answers 500 and applies nothing
                         after=RATE       a write is applied, then answers 500
                         partial=RATE     a passwordless consume uses up the code, creates no user, answers 500
                         unverified=RATE  third-party sign-in-up with isVerified, or a consume of an email, creates
                                          the user but does not mark the email verified, answers 500
                         reads=RATE       a lookup (GET /users/by-accountinfo, /user/id, /users, ...) answers 500
                         replay=RATE      a write is answered with another request's earlier 200 body of the same
                                          path and applies nothing (a misbehaving proxy)
                         bareok=RATE      a write is answered {"status":"OK"} and applies nothing
                         seed=N           the seed of the draw (default 1): the same requests get the same faults
                       e.g. --faults before=0.05,after=0.05,partial=0.05,unverified=0.05,reads=0.05,seed=7
  --bulk-import-interval SECONDS
                       how often the bulk-import job processes staged users (default 5; 300 is the reference core's
                       fixed interval); it runs once at start-up, then SECONDS after each round ends. 0 or off: the
                       job never runs, as the reference with BULK_MIGRATION_CRON_ENABLED=false (also read here)
  --bulk-import-batch-size N
                       staged users the job takes at once (default 8000, the reference's bulk_migration_batch_size)
  --bulk-import-claim-ms MS
                       a claim of the job lasts a whole number of MS, at least one (default 0: as long as its work);
                       the reference checks a claim's workers once a second (1000)
  -h, --help           show this help

Examples:
  auth-migrate core                                      a sandbox on http://127.0.0.1:3567, store in the data folder
  auth-migrate core --port 0 --store ./rehearsal.json    a free port, a store of its own (the URL is printed)
  AUTH_MIGRATE_LICENSE_KEY=... auth-migrate core --reset-license    exactly this licence, none kept from before
`;

export function defaultStorePath(): string {
  return resolve(envPaths('auth-migrate').data, 'sandbox.json');
}

/** The reference core's API-key rules (CoreConfig): whitespace stripped, >= 20 chars of [A-Za-z0-9=-]. */
export function parseApiKeys(fromArgs: string[], fromEnv: string | undefined): string[] {
  const keys = [...fromArgs, ...(fromEnv ?? '').split(',')].map((k) => k.replace(/\s/g, '')).filter((k) => k !== '');
  for (const k of keys) {
    if (k.length < 20) throw new UserError('One of the API keys is too short. Please use at least 20 characters');
    if (!/^[A-Za-z0-9=-]+$/.test(k)) {
      throw new UserError("Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)");
    }
  }
  return [...new Set(keys)];
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(new UserError(`port ${port} on ${host} is already in use; pick another with --port (0 takes a free one)`));
      else if (err.code === 'EACCES') reject(new UserError(`not allowed to listen on port ${port} of ${host}; pick a port above 1024`));
      else reject(new UserError(`cannot listen on ${host}:${port} (${err.message})`));
    });
    server.listen(port, host, () => {
      const addr = server.address();
      resolvePort(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

const OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '3567' },
  store: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  'license-key': { type: 'string' },
  'reset-license': { type: 'boolean' },
  'signer-key': { type: 'string' },
  faults: { type: 'string' },
  'bulk-import-interval': { type: 'string' },
  'bulk-import-batch-size': { type: 'string' },
  'bulk-import-claim-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type CoreValues = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

export async function coreCommand(argv: string[], io: CommandIO): Promise<number> {
  let values: CoreValues;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}. See \`auth-migrate core --help\`.`);
  }
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const env = io.env;
  const s = coreSettings(values, env);
  await mkdir(dirname(s.storePath), { recursive: true });
  const { store, lock } = await openLockedStore(s.storePath, s.licenseKey, values['reset-license'] === true);
  const config = configFromEnv(env, { apiKeys: s.apiKeys, signerKey: s.signerKey || undefined, licenseKey: s.licenseKey || undefined });
  config.bulkImportIntervalMs = s.intervalSec * 1000;
  config.bulkImportBatchSize = s.batchSize;
  config.bulkImportClaimMs = s.claimMs;
  // A store that cannot be written any more (disk full, size limit, folder made read-only): every later write
  // would answer 500. One line naming the file and the fix, exit 2 (src/files/errors.ts), once the 500 is sent.
  let storeFailed = false;
  const onStoreError = (err: unknown): void => {
    if (storeFailed || !isFileError(err)) return;
    storeFailed = true;
    io.stderr.write(
      `auth-migrate: ${fileErrorMessage(err, s.storePath, 'every write answered OK is in the store: once fixed, start the core again')}\n`,
    );
    setImmediate(() => void lock.release().finally(() => process.exit(2)));
  };
  const app = createApp(store, config, s.faults, { onStoreError });
  const server = createServer({ keepAliveTimeout: 5_000 }, app.listener);
  let boundPort: number;
  try {
    boundPort = await listen(server, values.host!, s.port);
  } catch (err) {
    await store.close();
    await lock.release();
    throw err;
  }
  if (s.faults)
    io.stderr.write(
      `auth-migrate core: fault modes on (${values.faults ?? env[FAULTS_ENV]}): some requests will answer HTTP 500 or not their own answer\n`,
    );
  if (!s.jobOn) io.stderr.write('auth-migrate core: the bulk-import job is off: staged users stay NEW\n');
  io.stdout.write(`core listening on http://${values.host}:${boundPort}\n`);
  const job = s.jobOn ? startBulkImportJob(store, config, (line) => io.stderr.write(line + '\n')) : undefined;
  return untilStopped({ server, app, job, store, lock, storePath: s.storePath }, io);
}

/** The core's settings from its flags and the environment (the reference core's names as aliases). */
function coreSettings(values: CoreValues, env: NodeJS.ProcessEnv) {
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port!) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535`);
  const intervalRaw = values['bulk-import-interval']?.trim().toLowerCase();
  const intervalSec = intervalRaw === 'off' ? 0 : Number(intervalRaw ?? DEFAULT_BULK_IMPORT_INTERVAL_SEC);
  if (!Number.isFinite(intervalSec) || intervalSec < 0 || intervalSec > 86_400) {
    throw new UsageError('--bulk-import-interval must be a number of seconds from 0 (off) to 86400');
  }
  // Main.java:99 of the reference: the job is on unless BULK_MIGRATION_CRON_ENABLED parses as false.
  const cronEnv = env.BULK_MIGRATION_CRON_ENABLED;
  const jobOn = intervalSec > 0 && (cronEnv === undefined || cronEnv.toLowerCase() === 'true');
  const batchRaw = values['bulk-import-batch-size'] ?? String(DEFAULT_BULK_IMPORT_BATCH_SIZE);
  if (!/^\d+$/.test(batchRaw) || Number(batchRaw) < 1) throw new UsageError('--bulk-import-batch-size must be a whole number above 0');
  const claimRaw = values['bulk-import-claim-ms'] ?? '0';
  if (!/^\d+$/.test(claimRaw)) throw new UsageError('--bulk-import-claim-ms must be a whole number of milliseconds');
  // The same environment names as every other command; the reference core's names stay as documented aliases.
  const apiKeys = parseApiKeys(values['api-key'] ?? [], [env.AUTH_MIGRATE_API_KEY, env.API_KEYS].filter(Boolean).join(','));
  const signerKey = (
    values['signer-key'] ??
    (env.AUTH_MIGRATE_SIGNER_KEY || env.EXTERNAL_PASSWORD_HASHING_SIGNER_KEY || env.FIREBASE_PASSWORD_HASHING_SIGNER_KEY || '')
  ).trim();
  if (signerKey !== '' && !isStandardBase64(signerKey)) {
    throw new UserError('the signer key is not standard base64 (check --signer-key or AUTH_MIGRATE_SIGNER_KEY)');
  }
  const licenseKey = (values['license-key'] ?? env.AUTH_MIGRATE_LICENSE_KEY ?? '').trim();
  const faults = createFaultInjector(parseFaults(values.faults ?? env[FAULTS_ENV]));
  const storePath = resolve(values.store ?? defaultStorePath());
  return {
    port,
    intervalSec,
    jobOn,
    batchSize: Number(batchRaw),
    claimMs: Number(claimRaw),
    apiKeys,
    signerKey,
    licenseKey,
    faults,
    storePath,
  };
}

/** The store, locked (one sandbox per store: a second one would delete the first one's live change log). */
async function openLockedStore(storePath: string, licenseKey: string, resetLicense: boolean) {
  const lock = await acquireLock(storePath, 'the sandbox store', 'auth-migrate core');
  let store;
  try {
    store = await openStore(storePath);
  } catch (err) {
    await lock.release();
    throw err;
  }
  // A licence given at start-up is stored, as PUT /ee/license would (it then survives restarts). With
  // --reset-license the store holds exactly the licence given: none removes one an earlier start stored.
  const stored = store.state.maps.meta.get('license')?.value ?? '';
  if ((licenseKey !== '' || resetLicense) && stored !== licenseKey) {
    await store.commit([{ c: 'meta', k: 'license', v: { value: licenseKey } }]);
  }
  return { store, lock };
}

interface Running {
  server: ReturnType<typeof createServer>;
  app: ReturnType<typeof createApp>;
  job: ReturnType<typeof startBulkImportJob> | undefined;
  store: Awaited<ReturnType<typeof openStore>>;
  lock: Awaited<ReturnType<typeof acquireLock>>;
  storePath: string;
}

/** Serves until a signal, the parent's exit or the end of its stdin pipe; then the store is flushed (exit 0, or 1). */
function untilStopped(r: Running, io: CommandIO): Promise<number> {
  const { server, app, job, store, lock, storePath } = r;
  return new Promise<number>((resolveExit) => {
    let stopping = false;
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) void stop();
    }, 1000);
    watch.unref();
    const stop = async (): Promise<void> => {
      if (stopping) return;
      stopping = true;
      server.close();
      await app.idle();
      await job?.stop();
      server.closeAllConnections();
      clearInterval(watch);
      // Stop listening to the parent's pipe, or it would keep this process alive after the flush.
      process.stdin.destroy();
      try {
        await store.close();
        await lock.release();
        resolveExit(0);
      } catch (err) {
        io.stderr.write(`auth-migrate core: could not flush the store ${storePath} (${(err as Error).message})\n`);
        resolveExit(1);
      }
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
    if (io.env.AUTH_MIGRATE_CORE_WATCH_STDIN === '1') {
      // Spawned by startSandbox: the stdin pipe closes when the parent exits, however it exits.
      process.stdin.on('end', () => void stop());
      process.stdin.on('close', () => void stop());
      process.stdin.resume();
    }
  });
}
