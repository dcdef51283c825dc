// The wizard's services: the screens' questions answered by the operations (src/operations/: validate, plan,
// preflight, run, verify, rollback) and the profile store, readers and sandbox spawner. Adapters only: what a run
// decides is decided in the operations, the same as for the headless commands.
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CoreClient, RetryPolicy } from '../../core-client/types.js';
import { planRun } from '../../operations/plan.js';
import { preflightTarget } from '../../operations/preflight.js';
import { startRun, type RunOutcome } from '../../operations/run.js';
import { clientFor } from '../../operations/target.js';
import { verifyMigration } from '../../operations/verify.js';
import * as store from '../../profiles/index.js';
import { spotCheckPassword } from '../../records/spot-check.js';
import { startSandbox } from '../../sandbox/spawn.js';
import { detectFormat, parseHashConfig, SOURCE_FORMATS } from '../../sources/index.js';
import { plannedCalls } from '../../operations/plan-calls.js';
import { completePath, looksLikePath } from './paths.js';
import { createPreview } from './preview.js';
import { undoRun } from './rollback.js';
import { connectionTo, openedProfile, settingsOf } from './settings.js';
import { checkCredentialsText, signIn } from './sign-in.js';
import { createSyncService, type SyncService } from './sync.js';
import type { RunRequest } from '../../operations/requests.js';
import type { PlanSummary, TargetConnection, WizardInput, WizardServices } from './types.js';

export interface RealServicesOptions {
  env?: NodeJS.ProcessEnv;
  /** Where relative paths are resolved (default: the current folder). */
  cwd?: string;
  /** Where each run's folder (journal, report, failures, resume command) is made (default: cwd), as `run --out`. */
  out?: string;
}

/** Sign-in checks wait on the operator: a few quick retries, not a run's patience. */
const SIGN_IN_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 100, maxDelayMs: 1_000 };

export function createRealServices(options: RealServicesOptions = {}): WizardServices {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const out = resolve(cwd, options.out ?? '.');
  const preview = createPreview(cwd);
  const settings: Settings = (input, target, profileName = 'wizard', readOnly = false) =>
    settingsOf(input, target, { profileName, cwd, out, readOnly });
  const state: ServicesState = { lastExit: undefined, lastPreflightRefused: false, keptStores: new Set() };
  const home = (path: string) => (path.startsWith('~/') ? `${env.HOME ?? ''}/${path.slice(2)}` : path);
  return {
    exitCode: () => (state.lastPreflightRefused ? 2 : (state.lastExit ?? 0)),
    profiles: profileServices(env, cwd),
    completePath: (partial) => completePath(partial, cwd),
    readEnv: (name) => (env[name] ? env[name] : undefined),
    resolvePath: (path) => resolve(cwd, home(path)),
    detectFormat: (path) => detectFormat(resolve(cwd, path)),
    formats: SOURCE_FORMATS,
    parseHashConfig: async (text) => {
      // A path (the file the console's parameters were saved in) is read; anything else is the pasted text.
      const body = looksLikePath(text) ? await readFile(resolve(cwd, home(text.trim())), 'utf8') : text;
      const { signerKey, algorithm, saltSeparator, rounds, memCost } = parseHashConfig(body);
      return { hashConfig: { algorithm: algorithm ?? 'SCRYPT', saltSeparator, rounds, memCost }, signerKey };
    },
    validate: (input, onRecord) => preview.validate(input, onRecord),
    search: (input, query, limit) => preview.search(input, query, limit),
    spotCheck: (record, password, signerKey) => spotCheckPassword(record, password, { signerKey }),
    startSandbox: (o) => startWizardSandbox(o, cwd, state.keptStores),
    preflight: (target, input) => preflightOf(target, input, { preview, settings, state }),
    plan: (input, target) => planOf(input, target, preview, settings),
    run: (input, target, opts) => runOf(input, target, opts, { preview, settings, state }),
    rollback: (input, target, o) => undoRun(settings(input, target), target, o),
    sync: exitingWith(createSyncService(settings), (code) => {
      state.lastPreflightRefused = false;
      state.lastExit = code;
    }),
    async verify(input, target, onEvent) {
      const s = await settings(input, target, 'wizard', true);
      return verifyMigration(s, {
        connect: async (c) => connectionTo(target, s, c),
        onEvent: onEvent ?? (() => {}),
        prepared: await preview.prepared(input),
      });
    },
    signIn: (target, email, password) => withQuickClient(target, (client) => signIn(client, email, password)),
    async checkCredentialsFile(target, path) {
      const file = resolve(cwd, home(path));
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new Error(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
      return withQuickClient(target, (client) => checkCredentialsText(client, text));
    },
  };
}

type Settings = (input: WizardInput, target: TargetConnection, profileName?: string, readOnly?: boolean) => Promise<RunRequest>;

/** What the services remember between calls: the exit code's sources, and the sandbox stores a journal points at. */
interface ServicesState {
  /** The exit code of the latest run or sync, as `run` (or `run --sync`) would end with it. */
  lastExit: number | undefined;
  /** The latest preflight refused the target and no run came after it: the wizard exits 2, as `run` would. */
  lastPreflightRefused: boolean;
  /** Temporary sandbox stores a run's journal points at: never removed (the resume command needs them). */
  keptStores: Set<string>;
}

function profileServices(env: NodeJS.ProcessEnv, cwd: string): WizardServices['profiles'] {
  return {
    list: () => store.listProfiles(env),
    load: async (name) => openedProfile(await store.loadProfile(name, env), env),
    save: (profile, secrets) => store.saveProfile(profile, secrets, env, cwd),
    remove: (name) => store.deleteProfile(name, env),
    rename: (from, to) => store.renameProfile(from, to, env),
    duplicate: (from, to) => store.duplicateProfile(from, to, env),
    paths: () => store.profilePaths(env),
  };
}

/** A client for sign-in checks (a few quick retries: they wait on the operator), closed after `use`. */
async function withQuickClient<T>(t: TargetConnection, use: (client: CoreClient) => Promise<T>): Promise<T> {
  const client = clientFor(
    t.url,
    { kind: 'remote', url: t.url, tenant: t.tenant, app: t.app },
    { apiKey: t.apiKey },
    { retry: SIGN_IN_RETRY },
  );
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/** A sandbox on a store of its own in a temp folder when none is given; removed on stop unless a run wrote to it. */
async function startWizardSandbox(o: Parameters<WizardServices['startSandbox']>[0], cwd: string, keptStores: Set<string>) {
  const tempDir = o.store ? undefined : mkdtempSync(join(tmpdir(), 'auth-migrate-sandbox-'));
  const s = await startSandbox({
    store: o.store ? resolve(cwd, o.store) : join(tempDir!, 'sandbox.json'),
    apiKeys: o.apiKey ? [o.apiKey] : [],
    licenseKey: o.licenseKey,
    signerKey: o.signerKey,
    ...(o.jobIntervalSec !== undefined ? { bulkImportIntervalSec: o.jobIntervalSec } : {}),
  });
  return {
    url: s.url,
    storePath: s.storePath,
    stop: async () => {
      await s.stop();
      if (tempDir && !keptStores.has(s.storePath)) await rm(tempDir, { recursive: true, force: true });
    },
  };
}

interface Parts {
  preview: ReturnType<typeof createPreview>;
  settings: Settings;
  state: ServicesState;
}

async function preflightOf(target: TargetConnection, input: WizardInput | undefined, { preview, settings, state }: Parts) {
  const p = input ? await preview.prepared(input) : undefined;
  const s = await settings(input ?? { sources: [] }, target, 'wizard', true).catch(() => undefined);
  return withQuickClient(target, async (client) => {
    const result = await preflightTarget(client, {
      needs: p?.needs,
      plan: s?.plan ?? {},
      via: input?.via ?? 'steps',
      apiKeyGiven: Boolean(target.apiKey),
      url: target.url,
    });
    state.lastPreflightRefused = !result.ok;
    return result;
  });
}

async function planOf(input: WizardInput, target: TargetConnection, preview: Parts['preview'], settings: Settings): Promise<PlanSummary> {
  const sample: string[] = [];
  const s = await settings(input, target, 'wizard', true);
  const p = await planRun(s, (line) => void (sample.length < 200 && sample.push(line)), { prepared: await preview.prepared(input) });
  return {
    users: p.planned,
    skipped: p.skipped + p.unplannable,
    totalCalls: p.calls,
    calls: plannedCalls(s.via, p),
    sample,
    fromJournal: p.fromJournal,
    losses: p.losses,
  };
}

function runOf(
  input: WizardInput,
  target: TargetConnection,
  opts: Parameters<WizardServices['run']>[2],
  { preview, settings, state }: Parts,
) {
  state.lastPreflightRefused = false;
  // A temporary sandbox store that a journal will point at is kept when the wizard ends.
  if (target.sandbox) state.keptStores.add(target.sandbox.storePath);
  let handle: ReturnType<typeof startRun> | undefined;
  let early: 'stop' | 'pause' | undefined;
  const done = (async () => {
    const s = await settings(input, target, opts.profileName);
    handle = startRun(s, {
      connect: async (c) => connectionTo(target, s, c),
      confirm: opts.confirm,
      onEvent: opts.onEvent,
      prepared: await preview.prepared(input),
    });
    if (early === 'pause') handle.pause();
    if (early === 'stop') handle.stop();
    const outcome: RunOutcome = await handle.done;
    state.lastExit = outcome.exitCode;
    return outcome;
  })();
  return {
    done,
    pause: () => (handle ? handle.pause() : (early = 'pause')),
    resume: () => (handle ? handle.resume() : (early = undefined)),
    stop: () => (handle ? handle.stop() : (early = 'stop')),
  };
}

/** The sync service, its outcome's exit code told (the wizard ends with it, as `run --sync` would). */
function exitingWith(sync: SyncService, told: (code: number) => void): SyncService {
  return {
    ...sync,
    start(input, target, o) {
      const handle = sync.start(input, target, o);
      return {
        ...handle,
        done: handle.done.then((outcome) => {
          told(outcome.exitCode);
          return outcome;
        }),
      };
    },
  };
}
