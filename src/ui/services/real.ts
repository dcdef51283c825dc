// The wizard's services, wired to the same modules as the headless commands (profiles, readers, validation,
// spot-check, sandbox, core client, planner, runner, journal, report files). Orchestration only.
import { collectGarbage } from '../../heap.js';
import { existsSync, mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createCoreClient } from '../../core-client/client.js';
import type { PlanNeeds } from '../../core-client/preflight.js';
import type { CoreClient, RetryPolicy } from '../../core-client/types.js';
import { dryRun } from '../../migration/dry-run.js';
import { identityId, loadJournal, openJournal, type RunIdentity } from '../../migration/journal.js';
import { chooseRunJournal, ensureRunFolder, findRunJournal } from '../../migration/run-folder.js';
import { forEachPooled } from '../../migration/pool.js';
import { createAccountLookup, verifyUser } from '../../migration/verify.js';
import { openRunFiles, pathsBesideJournal, writeResumeCommand } from '../../migration/report.js';
import { DEFAULT_BULK_IMPORT_INTERVAL_SEC } from '../../sandbox/config.js';
import { describeStagedProgress, describeStagedStalled } from '../../migration/render/staged-line.js';
import { DEFAULT_CONCURRENCY, startMigration, type MigrationInput as RunnerInput } from '../../migration/runner.js';
import { dryRunBulk } from '../../migration/bulk-dry-run.js';
import { VIA_EXPLAINED } from '../../migration/via.js';
import type { PlanOptions } from '../../migration/plan.js';
import { noNeeds, noteNeeds, prepareRun } from '../../migration/prepare.js';
import { checkTargetForPlan } from '../../migration/target-check.js';
import { openTotpCheckLog } from '../../migration/totp-checks.js';
import { decideRollback, performRollback, prepareRollback } from '../../migration/rollback.js';
import type { RollbackEvent } from '../../migration/rollback-events.js';
import { findRetiredRunJournal, logPathOf } from '../../migration/rollback-retire.js';
import type { RunEvent, UserResult } from '../../migration/events.js';
import type { StepKind } from '../../migration/steps.js';
import * as store from '../../profiles/index.js';
import { emptyProfile } from '../../profiles/index.js';
import { spotCheckPassword } from '../../records/spot-check.js';
import type { Problem } from '../../records/types.js';
import { originKey, streamValidatedRecords, validateSources, type ValidateOptions, type ValidationReport } from '../../records/validate.js';
import { parseDisabledPolicy, parseUnusableHashPolicy } from '../../migration/policies.js';
import { startSandbox } from '../../sandbox/spawn.js';
import { detectFormat, parseHashConfig, SOURCE_FORMATS, type ReadOptions } from '../../sources/index.js';
import { describeTarget, printableCommand, RUN_RETRY, sourceReadOptions, type Target } from '../../commands/target-options.js';
import { completePath } from './paths.js';
import { checkCredentialsText, signIn } from './sign-in.js';
import { readSignInFile, signInStatus } from '../../signin/status.js';

/** The counts of `auth-migrate signin-status` for the results screen (the core's answer, up to 20,000 users). */
async function signInCountsOf(client: CoreClient, file: string): Promise<RunOutcome['signInStatus']> {
  try {
    const users = await readSignInFile(file);
    if (users.length > 20_000) return undefined;
    const s = await signInStatus(client, users);
    return {
      waiting: s.waiting,
      ended: s.ended,
      byAlgorithm: Object.fromEntries(Object.entries(s.byAlgorithm).map(([a, v]) => [a, v.waiting])),
    };
  } catch {
    return undefined; // the counts are a convenience: signin-status says what went wrong
  }
}
import type {
  MigrationInput,
  PlanSummary,
  PreflightResult,
  RunHandle,
  RunOutcome,
  RunUpdate,
  TargetConnection,
  WizardServices,
} from './types.js';

const STEP_CALLS: Partial<Record<StepKind, string>> = {
  'import-password': 'POST /recipe/user/passwordhash/import',
  'replace-password': 'POST /recipe/user/passwordhash/import (replacing an existing hash)',
  'thirdparty-signinup': 'POST /recipe/signinup (third party)',
  'passwordless-signinup': 'POST /recipe/signinup/code + /consume',
  'passwordless-add-contact': 'PUT /recipe/user (rid passwordless)',
  'map-user-id': 'POST /recipe/userid/map',
  'verify-email': 'POST /recipe/user/email/verify/token + /recipe/user/email/verify',
  'create-primary': 'POST /recipe/accountlinking/user/primary',
  'link-accounts': 'POST /recipe/accountlinking/user/link',
  'import-totp': 'POST /recipe/totp/device/import',
  'update-metadata': 'GET + PUT /recipe/user/metadata',
  'legacy-entry': 'GET + PUT /recipe/user/metadata',
  'create-role': 'PUT /recipe/role',
  'assign-role': 'PUT /recipe/user/role',
};

interface Prepared {
  files: string[];
  read: ReadOptions & ValidateOptions;
  report: ValidationReport;
  /** What the plan needs from the target (the same rule as `run`: migration/prepare.ts). */
  needs: Required<PlanNeeds>;
}

/** The plan options of a wizard input: the same typed settings `run` reads from its flags. */
const planOf = (input: MigrationInput): PlanOptions => ({
  keepSourceIds: input.keepSourceIds ?? false,
  scryptAlgorithmName: input.scryptAlgorithmName,
  updateExisting: input.updateExisting ?? false,
  disabled: parseDisabledPolicy(input.disabled),
  unusableHashes: parseUnusableHashPolicy(input.unusableHashes),
});

export interface RealServicesOptions {
  env?: NodeJS.ProcessEnv;
  /** Where relative paths are resolved (default: the current folder). */
  cwd?: string;
  /** Where each run's folder (journal, report, failures, resume command) is made (default: cwd), as `run --out`. */
  out?: string;
}

function asTarget(t: TargetConnection): Target {
  return t.sandbox
    ? { kind: 'sandbox', store: t.sandbox.storePath, tenant: t.tenant, app: t.app }
    : { kind: 'remote', url: t.url, tenant: t.tenant, app: t.app };
}

/** Sign-in checks wait on the operator: a few quick retries, not a run's patience. */
const SIGN_IN_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 100, maxDelayMs: 1_000 };

function clientFor(
  t: TargetConnection,
  extra: { onRetry?: (reason: string) => void; concurrency?: number; retry?: RetryPolicy } = {},
): CoreClient {
  return createCoreClient({
    url: t.url,
    apiKey: t.apiKey,
    tenantId: t.tenant,
    appId: t.app,
    retry: extra.retry ?? RUN_RETRY,
    onRetry: extra.onRetry ? (info) => extra.onRetry!(`${info.method} ${info.path}: ${info.reason}`) : undefined,
    maxSockets: Math.max(8, (extra.concurrency ?? DEFAULT_CONCURRENCY) * 2),
  });
}

export function createRealServices(options: RealServicesOptions = {}): WizardServices {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const out = resolve(cwd, options.out ?? '.');
  /** The journal of this input's latest run on this target (its run folder's, or an older hash-named one), if any. */
  const journalOf = async (p: Prepared, target: TargetConnection) => {
    const identity = { sources: p.files, target: describeTarget(asTarget(target)) };
    return { identity, journal: await findRunJournal(out, identity) };
  };
  let cached: { key: string; prepared: Prepared } | undefined;
  let lastRun: RunOutcome | undefined;
  /** The latest preflight refused the target and no run came after it: the wizard exits 2, as `run` would. */
  let lastPreflightRefused = false;
  /** Temporary sandbox stores a run's journal points at: never removed (the resume command needs them). */
  const keptStores = new Set<string>();

  const readOptionsFor = async (input: MigrationInput) => {
    const profile = { ...emptyProfile('wizard'), sources: input.sources, hashConfig: input.hashConfig, providerMap: input.providerMap };
    const read: ReadOptions & ValidateOptions = await sourceReadOptions({}, profile, input.signerKey);
    read.unusableHashes = parseUnusableHashPolicy(input.unusableHashes);
    return read;
  };
  const filesOf = (input: MigrationInput) => input.sources.map((s) => resolve(cwd, s.path));
  const keyOf = (input: MigrationInput) => JSON.stringify(input);
  /** The validation report of this exact input: from the preview when nothing changed since, else read again. */
  const prepare = async (input: MigrationInput): Promise<Prepared> => {
    if (cached?.key === keyOf(input)) return cached.prepared;
    const files = filesOf(input);
    const read = await readOptionsFor(input);
    const { report, needs } = await prepareRun(files, read, planOf(input));
    collectGarbage(); // the first pass's duplicate tables are dead: freed now (heap.ts)
    const prepared = { files, read, report, needs };
    cached = { key: keyOf(input), prepared };
    return prepared;
  };

  return {
    exitCode: () => (lastPreflightRefused ? 2 : exitCodeOf(lastRun)),
    profiles: {
      list: () => store.listProfiles(env),
      load: (name) => store.loadProfile(name, env),
      save: (profile, secrets) => store.saveProfile(profile, secrets, env),
      remove: (name) => store.deleteProfile(name, env),
      rename: (from, to) => store.renameProfile(from, to, env),
      duplicate: (from, to) => store.duplicateProfile(from, to, env),
      paths: () => store.profilePaths(env),
    },
    completePath: (partial) => completePath(partial, cwd),
    readEnv: (name) => (env[name] ? env[name] : undefined),
    resolvePath: (path) => resolve(cwd, path.startsWith('~/') ? `${env.HOME ?? ''}/${path.slice(2)}` : path),
    detectFormat: (path) => detectFormat(resolve(cwd, path)),
    formats: SOURCE_FORMATS,
    parseHashConfig: (text) => {
      const { signerKey, algorithm, saltSeparator, rounds, memCost } = parseHashConfig(text);
      return { hashConfig: { algorithm: algorithm ?? 'SCRYPT', saltSeparator, rounds, memCost }, signerKey };
    },
    async validate(input, onRecord) {
      const files = filesOf(input);
      const read = await readOptionsFor(input);
      const id = (p: Problem) => `${originKey(p.origin)}|${p.rule}|${p.field ?? ''}|${p.message}`;
      const delivered = new Set<string>();
      const recordKeys = new Set<string>();
      const needs = noNeeds();
      const report = await validateSources(files, {
        ...read,
        onRecord: (v) => {
          recordKeys.add(originKey(v.origin));
          for (const p of v.problems) delivered.add(id(p));
          if (v.valid) noteNeeds(v.record, planOf(input), needs);
          onRecord({ key: originKey(v.origin), ...v });
        },
      });
      cached = { key: keyOf(input), prepared: { files, read, report, needs } };
      const undelivered = report.problems.filter((p) => !delivered.has(id(p)));
      const lateProblems = undelivered
        .filter((p) => recordKeys.has(originKey(p.origin)))
        .map((problem) => ({ key: originKey(problem.origin), problem }));
      // Problems of no record: lines or rows that could not become a user (bad JSON, a CSV row with too few cells...).
      const lineProblems = undelivered.filter((p) => !recordKeys.has(originKey(p.origin)));
      return { summary: report.summary, problems: report.problems, lateProblems, lineProblems, problemsOmitted: report.problemsOmitted };
    },
    spotCheck: (record, password, signerKey) => spotCheckPassword(record, password, { signerKey }),
    async startSandbox(o) {
      // A store of its own in a temp folder when none is given; removed on stop unless a run wrote to it.
      const tempDir = o.store ? undefined : mkdtempSync(join(tmpdir(), 'auth-migrate-sandbox-'));
      const s = await startSandbox({
        store: o.store ? resolve(cwd, o.store) : join(tempDir!, 'sandbox.json'),
        apiKeys: o.apiKey ? [o.apiKey] : [],
        licenseKey: o.licenseKey,
        signerKey: o.signerKey,
      });
      return {
        url: s.url,
        storePath: s.storePath,
        stop: async () => {
          await s.stop();
          if (tempDir && !keptStores.has(s.storePath)) await rm(tempDir, { recursive: true, force: true });
        },
      };
    },
    async preflight(target, input): Promise<PreflightResult> {
      const client = clientFor(target);
      try {
        // The same findings and blocking rule as headless `run` (migration/target-check.ts), for what this data needs.
        const p = input ? await prepare(input) : undefined;
        const {
          report: r,
          refusal,
          plan,
        } = await checkTargetForPlan(client, p?.needs ?? noNeeds(), input ? planOf(input) : {}, input?.via ?? 'steps');
        const checks = [
          { name: 'hello', ok: r.reachable, detail: r.reachable ? `${target.url} answers` : 'no answer' },
          {
            name: 'apiversion',
            ok: r.agreedCdiVersion !== undefined,
            detail: r.versions ? `CDI ${r.agreedCdiVersion ?? 'none in common'} (core lists ${r.versions.length})` : 'not asked',
          },
          {
            name: 'api key',
            ok: r.apiKeyAccepted === true,
            detail: r.apiKeyAccepted === undefined ? 'not checked' : r.apiKeyAccepted ? 'accepted' : 'refused (401)',
          },
          { name: 'features', ok: r.features !== undefined, detail: r.features ? r.features.join(', ') || 'none (no licence)' : 'unknown' },
        ];
        if (p?.needs.scrypt) {
          checks.push({
            name: 'scrypt',
            ok: r.signerKey === true,
            detail: plan.scryptAlgorithmName
              ? `"${plan.scryptAlgorithmName}", signer key ${r.signerKey ? 'present' : 'missing'}`
              : 'not supported',
          });
        }
        const warnings = r.findings.filter((f) => f.level !== 'info').map((f) => `${f.level}: ${f.message}`);
        lastPreflightRefused = refusal !== undefined;
        return { ok: refusal === undefined, checks, warnings, scryptAlgorithmName: plan.scryptAlgorithmName };
      } finally {
        client.close();
      }
    },
    async plan(input): Promise<PlanSummary> {
      const p = await prepare(input);
      const sample: string[] = [];
      const keep = (line: string) => {
        if (sample.length < 200) sample.push(line);
      };
      const via = input.via ?? 'steps';
      const inputs = streamValidatedRecords(p.files, p.read, p.report);
      const s = via === 'steps' ? await dryRun(inputs, planOf(input), keep) : await dryRunBulk(inputs, planOf(input), via, keep);
      const calls =
        via === 'steps'
          ? Object.entries(s.stepsByKind).map(([kind, count]) => ({ what: STEP_CALLS[kind as StepKind] ?? kind, count: count ?? 0 }))
          : [{ what: VIA_EXPLAINED[via], count: s.planned }];
      return { users: s.planned, skipped: s.skipped + s.unplannable, totalCalls: s.calls, calls, sample };
    },
    run(input, target, opts): RunHandle {
      let stopRequested = false;
      let pausedRequested = false;
      let migration: ReturnType<typeof startMigration> | undefined;
      const onEvent = (e: RunEvent) => {
        const u = toUpdate(e);
        if (u) opts.onUpdate(u);
      };
      lastPreflightRefused = false;
      const done = (async () => {
        const p = await prepare(input);
        const identity: RunIdentity = { sources: p.files, target: describeTarget(asTarget(target)) };
        const concurrency = input.concurrency ?? DEFAULT_CONCURRENCY;
        const client = clientFor(target, { concurrency, onRetry: (detail) => opts.onUpdate({ type: 'retry', detail }) });
        // The same check as `run`, right before the first write: what stops `run` stops the wizard, journal unwritten.
        const check = await checkTargetForPlan(client, p.needs, planOf(input), input.via ?? 'steps').catch((err: unknown) => ({
          refusal: err as Error,
          plan: planOf(input),
        }));
        if (check.refusal) {
          client.close();
          const t = { total: p.report.summary.records, imported: 0, alreadyPresent: 0, failed: 0, skipped: 0 };
          // Nothing was written: no run folder, no journal.
          return (lastRun = { totals: t, stopped: true, durationMs: 0, resumeCommand: '', error: check.refusal.message });
        }
        // The run's folder (run-folder.ts, as `run` chooses it): the earlier one of this migration, or a new one.
        const choice = await chooseRunJournal({ out, cwd, label: opts.profileName, identity });
        const journalPath = choice.journal;
        const paths = pathsBesideJournal(journalPath);
        await ensureRunFolder(journalPath);
        const journal = await openJournal(journalPath, identity);
        collectGarbage(); // what reading the journal left, before the migration allocates (heap.ts)
        const files = openRunFiles(paths, planOf(input));
        // The keys of this session go into the command as the variables to set (printableCommand never prints a
        // value), so it works whether or not the profile stores them.
        const keys = [
          ...(target.apiKey ? ['--api-key', target.apiKey] : []),
          ...(target.licenseKey ? ['--license-key', target.licenseKey] : []),
          ...(input.signerKey ? ['--signer-key', input.signerKey] : []),
        ];
        const args = [
          '--profile',
          opts.profileName,
          '--journal',
          journalPath,
          ...(target.sandbox ? ['--sandbox', '--store', target.sandbox.storePath] : ['--core', target.url]),
          ...keys,
        ];
        // A temporary sandbox store that a journal now points at is kept when the wizard ends.
        if (target.sandbox) keptStores.add(target.sandbox.storePath);
        try {
          const runOptions = {
            inputs: streamValidatedRecords(p.files, p.read, p.report),
            reopenInputs: () => streamValidatedRecords(p.files, p.read, p.report),
            total: p.report.summary.records,
            core: client,
            journal,
            plan: check.plan,
            concurrency,
            onEvent,
            onUserResult: (result: UserResult, i: RunnerInput) => files.write(result, i),
          };
          // The same runners as `run --via` (migration/via.ts).
          // The sandbox's bulk-import job runs every few seconds; a remote core's as the reference's (300 s).
          const jobIntervalMs = target.sandbox ? DEFAULT_BULK_IMPORT_INTERVAL_SEC * 1000 : undefined;
          migration = startMigration({ ...runOptions, via: input.via ?? 'steps', ...(jobIntervalMs ? { jobIntervalMs } : {}) });
          if (pausedRequested) migration.pause();
          if (stopRequested) migration.stop();
          const summary = await migration.done;
          journal.append({
            type: 'end',
            reason: summary.stopped === 'fatal' ? 'fatal' : summary.stopped ? 'stopped' : 'finished',
            at: new Date().toISOString(),
          });
          const t = summary.totals;
          const resumeCommand = printableCommand('run', args);
          // Beside the journal too, whole, so it can be copied after the wizard is closed.
          const resumeFile = summary.stopped ? await writeResumeCommand(paths.journal, resumeCommand) : undefined;
          const signInCounts =
            check.plan.unusableHashes === 'migrate-at-sign-in' && paths.signIn && existsSync(paths.signIn)
              ? await signInCountsOf(client, paths.signIn)
              : undefined;
          return (lastRun = {
            ...(signInCounts ? { signInStatus: signInCounts } : {}),
            ...(choice.folder ? { folder: choice.folder } : {}),
            ...(resumeFile ? { resumeFile } : {}),
            ...(paths.signIn && existsSync(paths.signIn) ? { signInFile: paths.signIn } : {}),
            totals: { total: t.total, imported: t.imported, alreadyPresent: t.alreadyPresent, failed: t.failed, skipped: t.skipped },
            stopped: summary.stopped !== undefined,
            durationMs: summary.durationMs,
            journal: paths.journal,
            failuresFile: paths.failures,
            report: paths.report,
            resumeCommand,
            error: summary.fatal?.message,
          });
        } finally {
          await journal.close();
          await files.close();
          client.close();
        }
      })();
      return {
        pause: () => (migration ? migration.pause() : (pausedRequested = true)),
        resume: () => (migration ? migration.resume() : (pausedRequested = false)),
        stop: () => (migration ? migration.stop() : (stopRequested = true)),
        done,
      };
    },
    async rollback(input, target, dryRun, onProgress) {
      const p = await prepare(input);
      const { identity, journal: live } = await journalOf(p, target);
      // After an undo began, its journal is retired (renamed): u again goes on with it.
      const journalPath = live ?? (await findRetiredRunJournal(out, identityId(identity)));
      if (!journalPath) throw new Error(`no journal of this migration under ${out}: nothing to undo`);
      const prepared = await prepareRollback(journalPath, identity.target, 'the auth-migrate wizard (rollback)');
      const client = clientFor(target);
      const onEvent = (e: RollbackEvent) => {
        if (e.type === 'rollback-progress') onProgress?.({ done: e.done, total: e.total });
      };
      try {
        const d = dryRun ? await decideRollback(client, prepared, { onEvent }) : undefined;
        const s = d ?? (await performRollback(client, prepared, { onEvent }));
        const done = d ? undefined : (s as Awaited<ReturnType<typeof performRollback>>);
        return {
          users: s.removed + s.undone,
          actions: s.actions,
          performed: done ? s.removed + s.undone : 0,
          failed: done?.failures ?? [],
          kept: s.keptUsers.map((k) => `user ${k.user}: ${k.reasons.join('; ')}`),
          notUndone: s.notUndone,
          log: done?.log ?? logPathOf(prepared.journal),
        };
      } finally {
        client.close();
        await prepared.release();
      }
    },
    async verify(input, target) {
      const p = await prepare(input);
      const found = await journalOf(p, target);
      // Without a run (nothing to read ids from), the TOTP checks log goes where older versions kept it.
      const journalPath = found.journal ?? resolve(out, `auth-migrate-${identityId(found.identity)}.journal.ndjson`);
      const journal = found.journal ? (await loadJournal(found.journal)).users : undefined;
      collectGarbage();
      const concurrency = input.concurrency ?? DEFAULT_CONCURRENCY;
      const client = clientFor(target, { concurrency });
      const lookup = createAccountLookup(client);
      const totpChecksFile = target.sandbox !== undefined ? `${journalPath}.totp-checks.ndjson` : undefined;
      const totpLog = totpChecksFile ? await openTotpCheckLog(totpChecksFile) : undefined;
      const plan = planOf(input);
      const summary = { checked: 0, ok: 0, failed: 0, skipped: 0, lines: [] as string[], ...(totpChecksFile ? { totpChecksFile } : {}) };
      try {
        await forEachPooled(streamValidatedRecords(p.files, p.read, p.report), concurrency, async (i) => {
          // On the sandbox, TOTP codes computed from the source secrets are tried too (as `verify --sandbox` does).
          const v = await verifyUser(i, client, {
            plan,
            journal,
            checkTotpCodes: target.sandbox !== undefined,
            totpLog,
            checkExtraDevices: true,
            lookup,
          });
          summary.checked += 1;
          if (v.outcome === 'ok') summary.ok += 1;
          else if (v.outcome === 'skipped') summary.skipped += 1;
          else summary.failed += 1;
          if (v.outcome !== 'ok' && summary.lines.length < 50) summary.lines.push(`${v.outcome}: ${v.id}: ${v.differences.join('; ')}`);
        });
      } finally {
        client.close();
      }
      return summary;
    },
    async signIn(target, email, password) {
      const client = clientFor(target, { retry: SIGN_IN_RETRY });
      try {
        return await signIn(client, email, password);
      } finally {
        client.close();
      }
    },
    async checkCredentialsFile(target, path) {
      const file = resolve(cwd, path.startsWith('~/') ? `${env.HOME ?? ''}/${path.slice(2)}` : path);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new Error(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
      const client = clientFor(target, { retry: SIGN_IN_RETRY });
      try {
        return await checkCredentialsText(client, text);
      } finally {
        client.close();
      }
    },
  };
}

function toUpdate(e: RunEvent): RunUpdate | undefined {
  switch (e.type) {
    case 'run-started':
      return { type: 'started', total: e.total };
    case 'user-done': {
      const r = e.result;
      const outcome = r.outcome === 'alreadyPresent' ? 'already-present' : r.outcome;
      return {
        type: 'user',
        outcome,
        sourceId: r.id,
        failure: r.outcome === 'failed' ? `${r.step ?? ''} ${r.status ?? ''} ${r.message ?? ''}`.trim() : undefined,
        ...(r.resumed ? { resumed: true } : {}),
      };
    }
    case 'concurrency':
      return { type: 'concurrency', limit: e.limit, max: e.max };
    case 'paused':
      return { type: 'paused', at: e.at };
    case 'resumed':
      return { type: 'resumed', at: e.at };
    case 'stopping':
      return { type: 'stopping' };
    case 'staged-progress':
      return { type: 'staged', detail: describeStagedProgress(e) };
    case 'staged-stalled':
      return { type: 'staged', detail: describeStagedStalled(e) };
    case 'staged-phase':
      return { type: 'staged', detail: e.detail };
    case 'staged-removed':
      return { type: 'staged', detail: `removed ${e.removed} staged users the job had not started; ${e.left} left to the job` };
    default:
      return undefined;
  }
}

/** The codes `run` exits with, for the wizard's last run (0 when nothing ran). */
export function exitCodeOf(o: RunOutcome | undefined): number {
  if (!o) return 0;
  if (o.error) return 2;
  if (o.stopped) return 130;
  return o.totals.failed + o.totals.skipped > 0 ? 1 : 0;
}
