// `auth-migrate run`: the headless shell of the run operation (src/operations/run.ts). It turns argv into the run's
// settings, the operation's events into lines, signals into a safe stop and the outcome into an exit code:
// 0 all ok, 1 some failed or skipped, 2 refused or fatal, 130 stopped.
import { parseArgs } from 'node:util';
import type { CommandIO } from './io.js';
import { flagUsageError } from './flag-suggest.js';
import { UsageError } from '../errors.js';
import { exitOnSignals, stopOnSignals, type SignalGuard } from '../engine/pace/stop-signals.js';
import { planRun } from '../operations/plan.js';
import { rerunCommand, rerunText } from '../operations/rerun.js';
import { startRun, type RunOutcome } from '../operations/run.js';
import { planRequestOf, runRequestOf, type ResolveRunOptions, type RunOptionValues } from './run-request.js';
import { isSliced } from '../engine/plan/slice.js';
import { runSyncCommand } from './run-sync.js';
import { connectTarget } from '../operations/target.js';
import { drained } from '../engine/report.js';
import { skippedLines } from '../operations/skipped.js';
import { terminalAsking } from './confirm-prompt.js';
import { DRY_RUN_SAMPLE, RUN_HELP } from './run-help.js';
import { commonLines, createRunLines } from './run-lines.js';
import { SOURCE_OPTIONS, TARGET_OPTIONS } from './target-options.js';

export { RUN_HELP };

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
  'stall-after': { type: 'string' },
  'keep-source-ids': { type: 'boolean' },
  'no-keep-source-ids': { type: 'boolean' },
  'update-existing': { type: 'boolean' },
  'no-update-existing': { type: 'boolean' },
  disabled: { type: 'string' },
  'scrypt-algorithm-name': { type: 'string' },
  json: { type: 'boolean' },
  'json-events': { type: 'boolean' },
  'skip-preflight': { type: 'boolean' },
  'allow-partial': { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
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
    throw flagUsageError(err, OPTIONS, 'run');
  }
}

export async function runCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout.write(RUN_HELP);
    return 0;
  }
  const err = (line: string) => io.stderr.write(line + '\n');
  const o = { cwd: process.cwd(), env: io.env, positionals, rerunArgs: argv };
  const flags: RunOptionValues = values;
  if (values.sync) return syncCommand(flags, o, argv, io);
  if (values['from-journal'] !== undefined || values['remove-missing']) {
    throw new UsageError('--from-journal and --remove-missing belong to --sync (bring the core up to date with a newer export)');
  }
  if (values['dry-run']) return dryRunCommand(flags, o, io, values.steps ? undefined : DRY_RUN_SAMPLE, values.json === true);

  // Until the first write a signal ends the command at once (exit 130): nothing was written, the same command
  // starts again. From the first write on it stops the run safely (in-flight users finish, the journal is flushed).
  let signals: SignalGuard = exitOnSignals(err, rerunCommand('run', argv, { exports: [] }).command);
  let settings;
  try {
    settings = await runRequestOf(flags, o);
  } catch (e) {
    signals.remove();
    throw e;
  }
  const onEvent = createRunLines(io.stderr, { jsonEvents: values['json-events'] === true });
  const run = startRun(settings, {
    connect: (c) => connectTarget(settings, c),
    // No terminal to ask on and no --yes: the session refuses a real core before anything is read or sent.
    ...terminalAsking({ stdin: io.stdin ?? process.stdin, stderr: io.stderr }, values.yes === true),
    onEvent: (e) => {
      if (e.type === 'run-folder') {
        signals.remove();
        signals = stopOnSignals(err, () => run.stop());
      }
      onEvent(e);
    },
    drained: () => drained(io.stderr),
  });
  let outcome: RunOutcome;
  try {
    outcome = await run.done;
  } finally {
    signals.remove();
  }
  if (outcome.stopped === 'refused') err(`no run folder or journal was made; once fixed, run again: ${rerunText(outcome.rerun)}`);
  else printFiles(outcome, err);
  if (values.json) io.stdout.write(JSON.stringify(jsonSummary(outcome)) + '\n');
  return outcome.exitCode;
}

function printFiles(o: RunOutcome, err: (line: string) => void): void {
  const t = o.totals;
  if (o.skipped) skippedLines(t.skipped, o.skipped, o.paths?.report).forEach(err);
  if (o.folder) err(`run folder ${o.folder}`);
  if (o.paths) {
    err(`journal ${o.paths.journal}`);
    err(`report ${o.paths.report}`);
    if (t.failed > 0)
      err(
        `failures ${o.paths.failures}: the ${t.failed} failed user(s) as canonical records, to fix and rerun (they hold hashes and secrets: mode 0600)`,
      );
    if (o.paths.signIn)
      err(`sign-in migration ${o.paths.signIn}: users whose hash the core cannot take, for the first-sign-in path (hashes: mode 0600)`);
  }
  if (o.sandboxStore) err(`sandbox store ${o.sandboxStore}`);
  if (o.resumeFile) err(`resume command saved in ${o.resumeFile}`);
  if (o.stopped === 'requested') err(`stopped; to resume: ${rerunText(o.rerun)}`);
  if (o.stopped === 'fatal') {
    err(`auth-migrate: ${o.error ?? 'the run stopped'}`);
    err(`the journal shows what was done; once fixed, resume with: ${rerunText(o.rerun)}`);
  }
}

function jsonSummary(o: RunOutcome): Record<string, unknown> {
  const t = o.totals;
  if (o.stopped === 'refused')
    return { ...t, unreadable: o.unreadable, stopped: 'fatal', refused: o.refusal?.code, error: o.refusal?.message };
  return {
    total: t.total,
    imported: t.imported,
    alreadyPresent: t.alreadyPresent,
    failed: t.failed,
    skipped: t.skipped,
    ...(o.skipped && t.skipped > 0 ? { skippedUsers: o.skipped.first, skippedByReason: o.skipped.byStatus } : {}),
    resumed: t.resumed,
    replaced: t.replaced ?? 0,
    unreadable: o.unreadable,
    durationMs: o.durationMs,
    journal: o.paths?.journal,
    failuresFile: o.paths?.failures,
    reportFile: o.paths?.report,
    ...(o.folder ? { runFolder: o.folder } : {}),
    ...(o.sandboxStore ? { sandboxStore: o.sandboxStore } : {}),
    ...(o.stopped
      ? { stopped: o.stopped, resumeCommand: o.rerun.command, ...(o.rerun.exports.length ? { export: o.rerun.exports } : {}) }
      : {}),
    ...(o.error ? { error: o.error } : {}),
  };
}

/** `--sync`: the second pass of a cutover (docs/migration.md, "Two-pass cutover"): the sync operation's shell. */
async function syncCommand(
  flags: RunOptionValues & Parameters<typeof runSyncCommand>[0]['values'],
  o: ResolveRunOptions,
  argv: string[],
  io: CommandIO,
): Promise<number> {
  const settings = await planRequestOf(flags, o);
  if (isSliced(settings.slice)) throw new UsageError('--sync brings every user up to date: leave out --skip, --limit and --only');
  return runSyncCommand({ argv, io, cwd: o.cwd, settings, values: flags });
}

async function dryRunCommand(
  flags: RunOptionValues,
  o: ResolveRunOptions,
  io: CommandIO,
  sample: number | undefined,
  json: boolean,
): Promise<number> {
  const settings = await planRequestOf(flags, o);
  const err = (line: string) => io.stderr.write(line + '\n');
  const early = exitOnSignals(err, undefined);
  try {
    const out = json ? () => {} : (line: string) => io.stdout.write(line + '\n');
    const s = await planRun(settings, out, {
      sample,
      onEvent: (e) => {
        if (e.type === 'partial' && !e.allowed) for (const l of e.losses) err(`a run would be refused (nothing written): ${l.message}`);
        commonLines(e).forEach(err);
      },
    });
    if (s.fromJournal > 0 && !json)
      out(`the earlier run of this migration finished ${s.fromJournal} of these users (journal ${s.journal})`);
    if (json) io.stdout.write(JSON.stringify({ dryRun: true, ...s }) + '\n');
    return s.skipped + s.unplannable + s.unreadable > 0 ? 1 : 0;
  } finally {
    early.remove();
  }
}
