// `auth-migrate run`: validate the sources, then migrate every valid user into the target, journalled and
// resumable; `--dry-run` only prints the plan. Exit codes: 0 all ok, 1 some failed or skipped, 2 fatal, 130 stopped.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIO } from '../cli.js';
import { parseHashingAlgorithmName } from '../hashes/formats.js';
import { UsageError } from '../errors.js';
import { emptyTotals } from '../migration/events.js';
import type { PlanOptions } from '../migration/plan.js';
import { parseDisabledPolicy, profileSwitch } from '../migration/policies.js';
import { collectGarbage } from '../heap.js';
import { drained } from '../migration/report.js';
import { prepareRun, type PlanNeeds } from '../migration/prepare.js';
import { checkTargetForPlan } from '../migration/target-check.js';
import { exitOnSignals, stopOnSignals } from '../migration/stop-signals.js';
import { isSliced, parseSlice, sliceRecords, sliceTotal } from '../migration/slice.js';
import { dryRun } from '../migration/dry-run.js';
import { dryRunBulk } from '../migration/bulk-dry-run.js';
import { parseVia, VIA_EXPLAINED, type Via } from '../migration/via.js';
import { openJournal, type Journal, type RunIdentity } from '../migration/journal.js';
import { chooseRunJournal, ensureRunFolder } from '../migration/run-folder.js';
import { createJsonLinesRenderer } from '../migration/render/json.js';
import { createPlainRenderer, terminalLines } from '../migration/render/plain.js';
import { openRunFiles, pathsBesideJournal, writeResumeCommand } from '../migration/report.js';
import { DEFAULT_CONCURRENCY, startMigration, type MigrationInput, type RunSummary } from '../migration/runner.js';
import type { RunEvent, UserResult } from '../migration/events.js';
import { DEFAULT_STAGED_BATCH, REFERENCE_JOB_INTERVAL_MS } from '../migration/staged-strategy.js';
import { DEFAULT_BULK_IMPORT_INTERVAL_SEC } from '../sandbox/config.js';
import { streamValidatedRecords, type ValidationReport } from '../records/validate.js';
import { resolveSourceOptions } from './source-options.js';
import { runSyncCommand } from './run-sync.js';
import {
  connectTarget,
  type Connection,
  describeTarget,
  printableCommand,
  resolveTarget,
  SOURCE_OPTIONS,
  sourceFiles,
  TARGET_OPTIONS,
} from './target-options.js';

/** Users whose steps `--dry-run` lists without --steps. */
const DRY_RUN_SAMPLE = 10;

export const RUN_HELP = `Usage: auth-migrate run <file>... [options]     (a file named - is standard input)

Validate the export files, then migrate every valid user into the target core.
Target:     --core URL | --sandbox [--store FILE]   --tenant T  --app A  --profile NAME
Keys:       --api-key KEY  --license-key KEY  --signer-key B64
            (or AUTH_MIGRATE_API_KEY, AUTH_MIGRATE_LICENSE_KEY, AUTH_MIGRATE_SIGNER_KEY)
Sources:    --format canonical|firebase|firebase-csv|auth0|clerk|supabase|keycloak|cognito|totp  --hash-config FILE  --provider-map FILE
            --unusable-hashes skip|without-password|migrate-at-sign-in (see Migration)
Files:      each run writes its journal, report, failures file and resume command into one folder named for
            the profile (or "run") and the UTC time, e.g. ./night-2026-11-23T09-35-08Z/, printed at start;
            --out DIR puts that folder under DIR instead of the current folder. The same command run again
            (same files, same target) carries on in the newest folder of that migration. --journal FILE
            instead: the journal at FILE, the other files beside it (FILE minus .journal.ndjson + .report.ndjson...)
Migration:  --concurrency N (default ${DEFAULT_CONCURRENCY}; fewer at once while the core answers 5xx or times out)
            --keep-source-ids (--no-keep-source-ids turns a profile's off; --no-update-existing likewise)
            --scrypt-algorithm-name NAME (default: the name the preflight finds the core takes, external_scrypt
            or firebase_scrypt)  --update-existing (replace the password hash of users already in the core;
            by default they are found first and left unchanged)  --disabled skip|import|role:NAME (users disabled
            or blocked in the source: left out by default, reported as skipped; import migrates them anyway;
            role:NAME migrates them with the role NAME, so the app can refuse them)
            --unusable-hashes skip|without-password|migrate-at-sign-in (users whose password hash the core cannot
            take, md5, sha-*, pbkdf2, Firebase HMAC, Django bcrypt_sha256...: left out by default; without-password
            imports the rest of them; migrate-at-sign-in imports them whole with an unusable password and keeps the
            hash in the core for the app's sign-in part, auth-migrate/signin). Such users are listed, with their hash,
            in signin-migration.ndjson of the run folder (0600); auth-migrate signin-status follows them (docs/migration.md 6a)
Via:        --via steps|bulk|bulk-staged (default steps)
            steps: ${VIA_EXPLAINED.steps}
            bulk: ${VIA_EXPLAINED.bulk}
            bulk-staged: ${VIA_EXPLAINED['bulk-staged']}
            --batch-size N (bulk-staged: users per upload, default 10000, the core's most)
            --job-interval SECONDS (bulk-staged: how often the core runs its bulk-import job, default 300 as the
            reference core, the --sandbox's 5: the run says when it runs next, and stops with a warning when
            nothing moves for two intervals)
Slice:      --skip N  --limit N  --only ID[,ID...] (repeatable): try a first slice of the records (in file
            order) before the rest; a later run without them carries on with everything
Sync:       --sync: bring the core up to date with a newer export of the same migration (the second pass of a
            cutover): only new, changed and gone users cost requests; the earlier run is the newest run folder
            of this target under --out (or here), or --from-journal FILE; --remove-missing removes users the export
            no longer has (only those the migration created, unchanged since); with --dry-run, the delta and the
            changes planned. The old system is authoritative until cutover: changed hashes are imported over the
            core's (docs/migration.md, "Two-pass cutover")
Output:     --dry-run (the plan's totals per step kind and the first ${DRY_RUN_SAMPLE} users' steps; with --steps every user's;
            writes nothing)  --json (one summary on stdout)  --json-events
Checks:     before any write the core is checked (reachable, api-key, CDI version, tenant, and the licence
            features the plan needs); --skip-preflight goes straight to the writes
Exit codes: 0 all users ok, 1 some failed or were skipped, 2 bad usage / unreadable input / fatal core
            answer (401, 402, unreachable), 130 stopped by SIGINT/SIGTERM (rerun the printed command to resume).
A sandbox rehearsal gets exactly the keys given: without --license-key its TOTP and linking answer 402,
as a production core without a licence would.
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  ...SOURCE_OPTIONS,
  journal: { type: 'string' },
  out: { type: 'string' },
  concurrency: { type: 'string' },
  'dry-run': { type: 'boolean' },
  via: { type: 'string' },
  'batch-size': { type: 'string' },
  'job-interval': { type: 'string' },
  'keep-source-ids': { type: 'boolean' },
  'no-keep-source-ids': { type: 'boolean' },
  'update-existing': { type: 'boolean' },
  'no-update-existing': { type: 'boolean' },
  disabled: { type: 'string' },
  'scrypt-algorithm-name': { type: 'string' },
  json: { type: 'boolean' },
  'json-events': { type: 'boolean' },
  'skip-preflight': { type: 'boolean' },
  steps: { type: 'boolean' },
  skip: { type: 'string' },
  limit: { type: 'string' },
  only: { type: 'string', multiple: true },
  sync: { type: 'boolean' },
  'from-journal': { type: 'string' },
  'remove-missing': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}. See \`auth-migrate run --help\`.`);
  }
}

function parseConcurrency(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 512) throw new UsageError(`--concurrency must be a whole number from 1 to 512 (got "${text}")`);
  return n;
}

/** Users per upload of --via bulk-staged: 1 to 10,000 (the core's limit per request, and the default). */
/** The interval of the core's bulk-import job, in ms: --job-interval, else the sandbox's or the reference's. */
function parseJobInterval(text: string | undefined, sandbox: boolean): number {
  if (text === undefined) return sandbox ? DEFAULT_BULK_IMPORT_INTERVAL_SEC * 1000 : REFERENCE_JOB_INTERVAL_MS;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400)
    throw new UsageError(`--job-interval must be a number of seconds above 0, at most 86400 (got "${text}")`);
  return n * 1000;
}

function parseBatchSize(text: string | undefined): number {
  if (text === undefined) return DEFAULT_STAGED_BATCH;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new UsageError(`--batch-size must be a whole number from 1 to 10000 (got "${text}")`);
  return n;
}

/** The name sent as hashingAlgorithm for the scrypt variant: one the core reads as that variant. */
function scryptName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (parseHashingAlgorithmName(name) !== 'external_scrypt') {
    throw new UsageError(`--scrypt-algorithm-name must name the scrypt variant: external_scrypt or firebase_scrypt (got "${name}")`);
  }
  return name.trim();
}

function validationLine(report: ValidationReport): string {
  const s = report.summary;
  return `validated ${s.records} records: ${s.valid} valid, ${s.invalid} invalid (skipped), ${s.errors} errors, ${s.warnings} warnings`;
}

export async function runCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout.write(RUN_HELP);
    return 0;
  }
  const err = (line: string) => io.stderr.write(line + '\n');
  const cwd = process.cwd();
  const resolved =
    values['dry-run'] && values.core === undefined && !values.sandbox && values.profile === undefined
      ? undefined
      : await resolveTarget(values, io.env, cwd);
  const profile = resolved?.profile?.profile;
  const files = sourceFiles(positionals, profile, cwd);
  const readOptions = await resolveSourceOptions(values, io.env, resolved?.profile);
  // The hash config may carry the signer key: a sandbox rehearsal needs it too.
  if (resolved && !resolved.secrets.signerKey && readOptions.signerKey) resolved.secrets.signerKey = readOptions.signerKey;
  const planOptions: PlanOptions = {
    keepSourceIds: profileSwitch('keep-source-ids', values['keep-source-ids'], values['no-keep-source-ids'], profile?.keepSourceIds),
    updateExisting: profileSwitch('update-existing', values['update-existing'], values['no-update-existing'], profile?.updateExisting),
    disabled: parseDisabledPolicy(values.disabled ?? profile?.disabled),
    scryptAlgorithmName: scryptName(values['scrypt-algorithm-name'] ?? profile?.scryptAlgorithmName),
    unusableHashes: readOptions.unusableHashes,
  };
  const via: Via = parseVia(values.via ?? profile?.via);
  const batchSize = parseBatchSize(values['batch-size']);
  if (via !== 'steps' && planOptions.updateExisting) {
    throw new UsageError(
      `--update-existing works with --via steps only: --via ${via} imports whole users and never changes one already in the core`,
    );
  }
  const concurrency = parseConcurrency(values.concurrency, profile?.concurrency ?? DEFAULT_CONCURRENCY);
  const slice = parseSlice(values);
  if (values.sync) {
    // The second pass of a cutover (docs/migration.md, "Two-pass cutover"): its own operation, src/migration/sync/.
    if (isSliced(slice)) throw new UsageError('--sync brings every user up to date: leave out --skip, --limit and --only');
    return runSyncCommand({
      argv,
      io,
      cwd,
      files,
      readOptions,
      plan: planOptions,
      via,
      batchSize,
      concurrency,
      resolved,
      label: profile?.name,
      values,
    });
  }
  if (values['from-journal'] !== undefined || values['remove-missing']) {
    throw new UsageError('--from-journal and --remove-missing belong to --sync (bring the core up to date with a newer export)');
  }

  // The journal and the command that resumes the run are known before anything is read.
  const identity: RunIdentity | undefined = resolved ? { sources: files, target: describeTarget(resolved.target) } : undefined;
  // By default a folder of its own per run (run-folder.ts); the same migration run again finds its earlier folder.
  const choice =
    identity && !values['dry-run']
      ? await chooseRunJournal({ journal: values.journal, out: values.out, cwd, label: profile?.name, identity })
      : undefined;
  const journalPath = choice?.journal ?? (identity && values.journal !== undefined ? resolve(cwd, values.journal) : undefined);
  if (choice?.folder) err(`run folder ${choice.folder}${choice.found ? ' (carrying on from the earlier run of this migration)' : ''}`);
  const resumeArgs = [...argv];
  if (journalPath && values.journal === undefined) resumeArgs.push('--journal', journalPath);
  if (resolved?.target.kind === 'sandbox' && values.store === undefined) resumeArgs.push('--store', resolved.target.store);
  const resumeCommand = printableCommand('run', resumeArgs);

  // Pass 1: validate everything; an unreadable file stops here, before any write. Until the migration starts a
  // signal stops at once (exit 130): no user has been written, and the same command starts again.
  const early = exitOnSignals(err, values['dry-run'] ? undefined : resumeCommand);
  let prepared;
  try {
    prepared = await prepareRun(files, readOptions, planOptions);
  } catch (e) {
    early.remove();
    throw e;
  }
  const { report, needs, unreadable } = prepared;
  collectGarbage(); // the first pass's duplicate tables are dead: freed before the migration allocates (heap.ts)
  err(validationLine(report));
  // Source fields the readers could not carry: named once here too, so a run alone never drops data silently.
  const dropped = report.summary.fields?.dropped ?? [];
  if (dropped.length > 0) {
    err(
      `source fields not carried over: ${dropped.map((e) => `${e.format} ${e.field} (${e.records})`).join(', ')}; \`auth-migrate validate\` says why`,
    );
  }
  if (unreadable > 0) {
    err(`${unreadable} source items could not be read as users and are not migrated; \`auth-migrate validate\` lists them`);
  }

  if (values['dry-run']) {
    early.remove();
    const out = values.json ? () => {} : (line: string) => io.stdout.write(line + '\n');
    const inputs = sliceRecords(streamValidatedRecords(files, readOptions, report), slice);
    const sample = values.steps ? undefined : DRY_RUN_SAMPLE;
    const summary =
      via === 'steps'
        ? await dryRun(inputs, planOptions, out, sample)
        : await dryRunBulk(inputs, { ...planOptions, tenantId: resolved?.target.tenant }, via, out, sample);
    if (values.json) io.stdout.write(JSON.stringify({ dryRun: true, ...summary, unreadable }) + '\n');
    return summary.skipped + summary.unplannable + unreadable > 0 ? 1 : 0;
  }
  if (!resolved || !identity || !journalPath) throw new UsageError('say where to migrate: --core URL or --sandbox');

  const paths = pathsBesideJournal(journalPath);
  // The run folder and journal are made once the preflight has passed: a refused run leaves nothing behind.
  let journal: Journal | undefined;
  let refused = false;

  // On a terminal the progress line is redrawn in place; on a pipe every progress line is a line of its own.
  const tty = (io.stderr as NodeJS.WriteStream).isTTY === true;
  let listener: (e: RunEvent) => void = values['json-events']
    ? createJsonLinesRenderer(err)
    : createPlainRenderer(tty ? terminalLines(io.stderr) : { write: err });
  let connection: Connection | undefined;
  let summary: RunSummary | undefined;
  try {
    connection = await connectTarget(resolved, {
      concurrency,
      onRetry: (info) => listener({ type: 'retry', ...info, at: Date.now() }),
      onSandbox: (s) => err(`sandbox core at ${s.url}, store ${s.storePath}`),
    });
    const refusal = values['skip-preflight'] ? undefined : await checkTarget(connection, needs, planOptions, via, err);
    if (refusal) {
      refused = true;
      summary = { totals: emptyTotals(report.summary.records), durationMs: 0, stopped: 'fatal', fatal: refusal };
    } else {
      await ensureRunFolder(journalPath);
      journal = await openJournal(journalPath, identity);
      collectGarbage(); // what reading the journal left (every line parsed), before the migration allocates
      summary = await migrate(connection, journal);
    }
  } finally {
    early.remove();
    if (journal) {
      journal.append({
        type: 'end',
        reason: summary?.stopped === 'fatal' ? 'fatal' : summary?.stopped ? 'stopped' : 'finished',
        at: new Date().toISOString(),
      });
      await journal.close();
    }
    await connection?.close();
  }
  if (refused) {
    if (values.json)
      io.stdout.write(JSON.stringify({ ...summary.totals, unreadable, stopped: 'fatal', error: summary.fatal?.message }) + '\n');
    err(`auth-migrate: ${summary.fatal?.message ?? 'the preflight refused the target'}`);
    err(`no run folder or journal was made; once fixed, run again: ${resumeCommand}`);
    return 2;
  }

  async function migrate(conn: Connection, journal: Journal): Promise<RunSummary> {
    const runFiles = openRunFiles(paths, planOptions);
    const runOptions = {
      inputs: sliceRecords(streamValidatedRecords(files, readOptions, report), slice),
      reopenInputs: () => sliceRecords(streamValidatedRecords(files, readOptions, report), slice),
      total: sliceTotal(report.summary.records, slice),
      core: conn.client,
      journal,
      plan: planOptions,
      concurrency,
      onEvent: (e: RunEvent) => listener(e),
      // The next user waits while stderr holds a backlog (--json-events to a reader slower than the run, e.g.
      // half a million resumed users in seconds): otherwise every event line queues in memory.
      onUserResult: async (result: UserResult, input: MigrationInput) => {
        await runFiles.write(result, input);
        await drained(io.stderr);
      },
    };
    const jobIntervalMs = parseJobInterval(values['job-interval'], resolved?.target.kind === 'sandbox');
    const run = startMigration({ ...runOptions, via, batchSize, jobIntervalMs });
    early.remove();
    const stopOnSignal = stopOnSignals(err, () => run.stop());
    try {
      return await run.done;
    } finally {
      stopOnSignal.remove();
      await runFiles.close();
    }
  }

  listener = () => {};
  const t = summary.totals;
  if (choice?.folder) err(`run folder ${choice.folder}`);
  err(`journal ${paths.journal}`);
  err(`report ${paths.report}`);
  if (t.failed > 0) {
    err(
      `failures ${paths.failures}: the ${t.failed} failed user(s) as canonical records, to fix and rerun (they hold hashes and secrets: mode 0600)`,
    );
  }
  if (paths.signIn && existsSync(paths.signIn)) {
    err(`sign-in migration ${paths.signIn}: users whose hash the core cannot take, for the first-sign-in path (hashes: mode 0600)`);
  }
  if (connection?.sandbox) err(`sandbox store ${connection.sandbox.storePath}`);
  if (summary.stopped) err(`resume command saved in ${await writeResumeCommand(paths.journal, resumeCommand)}`);
  if (summary.stopped === 'requested') err(`stopped; to resume: ${resumeCommand}`);
  if (values.json) {
    io.stdout.write(
      JSON.stringify({
        total: t.total,
        imported: t.imported,
        alreadyPresent: t.alreadyPresent,
        failed: t.failed,
        skipped: t.skipped,
        resumed: t.resumed,
        replaced: t.replaced ?? 0,
        unreadable,
        durationMs: summary.durationMs,
        journal: paths.journal,
        failuresFile: paths.failures,
        reportFile: paths.report,
        ...(choice?.folder ? { runFolder: choice.folder } : {}),
        ...(connection?.sandbox ? { sandboxStore: connection.sandbox.storePath } : {}),
        ...(summary.stopped ? { stopped: summary.stopped, resumeCommand } : {}),
        ...(summary.fatal ? { error: summary.fatal.message } : {}),
      }) + '\n',
    );
  }
  if (summary.stopped === 'fatal') {
    const message = summary.fatal?.message ?? 'the run stopped';
    err(`auth-migrate: ${message}`);
    err(`the journal shows what was done; once fixed, resume with: ${resumeCommand}`);
    return 2;
  }
  if (summary.stopped === 'requested') return 130;
  return t.failed + t.skipped + unreadable > 0 ? 1 : 0;
}

/**
 * Before any write: the core answers, accepts the api-key, speaks our CDI version, knows the tenant, has the paid
 * features and login methods this plan needs, and takes its scrypt hashes (name learnt, signer key present).
 * Returns the reason to refuse, or undefined to go ahead; adjusts the plan to the target.
 */
async function checkTarget(
  conn: Connection,
  needs: PlanNeeds,
  plan: PlanOptions,
  via: Via,
  err: (line: string) => void,
): Promise<Error | undefined> {
  const check = await checkTargetForPlan(conn.client, needs, plan, via);
  for (const f of check.report.findings) if (f.level !== 'info') err(`preflight ${f.level}: ${f.message}`);
  if (!plan.scryptAlgorithmName && check.plan.scryptAlgorithmName)
    err(`preflight: the core takes external scrypt hashes as "${check.plan.scryptAlgorithmName}"`);
  Object.assign(plan, check.plan);
  return check.refusal;
}
