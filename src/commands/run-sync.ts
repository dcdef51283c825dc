// `auth-migrate run --sync`: bring the core up to date with a newer export of the same migration (the second pass
// of a cutover, docs/migration.md): the delta first, then only the changes, journalled in a run folder of its own.
// The operation is src/migration/sync/operation.ts; this file turns its results into lines and exit codes.
import type { CommandIO } from '../cli.js';
import { UsageError } from '../errors.js';
import { collectGarbage } from '../heap.js';
import type { RunEvent, UserResult } from '../migration/events.js';
import { openJournal, type Journal } from '../migration/journal.js';
import type { PlanOptions } from '../migration/plan.js';
import { checkTargetForPlan } from '../migration/target-check.js';
import { createJsonLinesRenderer } from '../migration/render/json.js';
import { createPlainRenderer, terminalLines } from '../migration/render/plain.js';
import { drained, openRunFiles, pathsBesideJournal, writeResumeCommand } from '../migration/report.js';
import { ensureRunFolder } from '../migration/run-folder.js';
import { startMigration, type MigrationInput, type RunSummary } from '../migration/runner.js';
import { stopOnSignals } from '../migration/stop-signals.js';
import type { Via } from '../migration/via.js';
import { readJournalHead } from '../migration/sync/base.js';
import { AUTHORITY, changeLines, deltaLines, predictSync } from '../migration/sync/dry-run.js';
import { checkBaseAgainstCore, prepareSync } from '../migration/sync/operation.js';
import { syncStrategy } from '../migration/sync/strategy.js';
import { userIdOf } from '../migration/sync/chain.js';
import type { ReadOptions } from '../sources/index.js';
import type { ValidateOptions } from '../records/validate.js';
import { connectTarget, describeTarget, type Connection, type ResolvedTarget } from './target-options.js';
import { rerunCommand, rerunText } from '../operations/rerun.js';

export interface SyncCommandInput {
  argv: string[];
  io: CommandIO;
  cwd: string;
  files: string[];
  readOptions: ReadOptions & ValidateOptions;
  plan: PlanOptions;
  via: Via;
  batchSize: number;
  concurrency: number;
  resolved?: ResolvedTarget;
  label?: string;
  /** The AUTH_MIGRATE_* variables the rerun needs exported (the rerun command never holds a key). */
  exports?: string[];
  values: {
    'from-journal'?: string;
    'remove-missing'?: boolean;
    journal?: string;
    out?: string;
    'dry-run'?: boolean;
    json?: boolean;
    'json-events'?: boolean;
    'skip-preflight'?: boolean;
    steps?: boolean;
    store?: string;
  };
}

export async function runSyncCommand(c: SyncCommandInput): Promise<number> {
  const { io, values } = c;
  const err = (line: string) => io.stderr.write(line + '\n');
  let target = c.resolved ? describeTarget(c.resolved.target) : undefined;
  if (target === undefined && values['from-journal'] !== undefined)
    target = (await readJournalHead(values['from-journal']))?.identity.target;
  if (target === undefined)
    throw new UsageError(
      'say which core the sync brings up to date: --core URL or --sandbox --store FILE (or, for a --dry-run, --from-journal FILE)',
    );
  const removeMissing = values['remove-missing'] ?? false;
  const p = await prepareSync({
    files: c.files,
    readOptions: c.readOptions,
    plan: c.plan,
    target,
    cwd: c.cwd,
    removeMissing,
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(values['from-journal'] !== undefined ? { fromJournal: values['from-journal'] } : {}),
    ...(values.journal !== undefined ? { journal: values.journal } : {}),
    ...(c.label !== undefined ? { label: c.label } : {}),
  });
  collectGarbage();
  const s = p.report.summary;
  err(`validated ${s.records} records: ${s.valid} valid, ${s.invalid} invalid (skipped), ${s.errors} errors, ${s.warnings} warnings`);
  err(
    `sync of ${c.files.join(', ')} with the earlier run ${p.base.path}${p.chain.length > 1 ? ` (run ${p.chain.length} of this migration)` : ''}`,
  );
  if (p.resume) err(`carrying on from the sync that stopped: ${p.resume.path}`);
  if (p.previous.note && p.work.changed.size + p.work.removals.size > 0) err(`note: ${p.previous.note}`);
  const out = values['dry-run'] ? (line: string) => void (values.json ? undefined : io.stdout.write(line + '\n')) : err;
  for (const line of deltaLines(p.delta, removeMissing)) out(line);

  if (values['dry-run']) {
    const prediction = await predictSync(p, p.identity.sources, c.readOptions, c.plan, out, values.steps ? Infinity : 5);
    out('changes planned (on a core as the earlier run left it):');
    for (const line of changeLines(prediction.changes)) out(line);
    out(AUTHORITY);
    out(`dry run: nothing was written; ${p.delta.unchanged.toLocaleString('en-US')} unchanged users cost no request.`);
    if (values.json) {
      io.stdout.write(
        JSON.stringify({
          dryRun: true,
          total: p.delta.records,
          sync: { ...p.delta, samples: p.delta.samples },
          changes: Object.fromEntries(prediction.changes),
          base: p.base.path,
        }) + '\n',
      );
    }
    return 0;
  }
  if (!c.resolved) throw new UsageError('say which core to bring up to date: --core URL or --sandbox --store FILE');
  if (!p.hasWork) {
    // Nothing to write: no core is contacted and no run folder is made.
    err(`nothing changed since the earlier run: no request was sent, nothing was written (base ${p.base.path})`);
    if (values.json) io.stdout.write(JSON.stringify({ sync: true, changed: 0, total: 0, base: p.base.path, applied: {} }) + '\n');
    return p.delta.invalid > 0 ? 1 : 0;
  }
  err(AUTHORITY);

  const rerun = rerunCommand('run', c.argv, {
    journal: p.journal,
    ...(c.resolved.target.kind === 'sandbox' ? { store: c.resolved.target.store } : {}),
    exports: c.exports ?? [],
  });
  const resumeCommand = rerunText(rerun);
  const paths = pathsBesideJournal(p.journal);
  const tty = (io.stderr as NodeJS.WriteStream).isTTY === true;
  let listener: (e: RunEvent) => void = values['json-events']
    ? createJsonLinesRenderer(err)
    : createPlainRenderer(tty ? terminalLines(io.stderr) : { write: err });
  let connection: Connection | undefined;
  let journal: Journal | undefined;
  let summary: RunSummary | undefined;
  let refusal: Error | undefined;
  try {
    connection = await connectTarget(c.resolved, {
      concurrency: c.concurrency,
      onRetry: (info) => listener({ type: 'retry', ...info, at: Date.now() }),
      onSandbox: (sb) => err(`sandbox core at ${sb.url}, store ${sb.storePath}`),
    });
    if (!values['skip-preflight']) {
      const check = await checkTargetForPlan(connection.client, p.needs, c.plan, c.via);
      for (const f of check.report.findings) if (f.level !== 'info') err(`preflight ${f.level}: ${f.message}`);
      Object.assign(c.plan, check.plan);
      refusal = check.refusal;
    }
    refusal ??= await checkBaseAgainstCore(connection.client, p, (id) => userIdOf(p.work.histories.get(id) ?? new Map()));
    if (!refusal) {
      await ensureRunFolder(p.journal);
      err(`sync folder ${paths.journal.replace(/\/journal\.ndjson$/, '')}`);
      journal = await openJournal(p.journal, p.identity, {
        ...(p.fingerprintKey ? { fingerprintKey: p.fingerprintKey } : {}),
        sync: { ...p.header },
      });
      const runFiles = openRunFiles(paths);
      const run = startMigration({
        inputs: p.inputs(),
        reopenInputs: p.inputs,
        total: p.total,
        core: connection.client,
        journal,
        plan: c.plan,
        via: c.via,
        batchSize: c.batchSize,
        concurrency: c.concurrency,
        onEvent: (e) => listener(e),
        onUserResult: async (result: UserResult, input: MigrationInput) => {
          const id = result.id;
          if (result.outcome === 'imported' && !p.work.changed.has(id) && !p.work.removals.has(id))
            p.work.applied.set('new', (p.work.applied.get('new') ?? 0) + 1);
          await runFiles.write(result, input);
          await drained(io.stderr);
        },
        wrapStrategy: syncStrategy(p.work),
        fingerprintOf: p.fingerprintOf,
      });
      const stop = stopOnSignals(err, () => run.stop());
      try {
        summary = await run.done;
      } finally {
        stop.remove();
        await runFiles.close();
      }
    }
  } finally {
    if (journal) {
      const reason = summary?.stopped === 'fatal' ? 'fatal' : summary?.stopped ? 'stopped' : 'finished';
      journal.append({ type: 'end', reason, at: new Date().toISOString() });
      await journal.close();
    }
    await connection?.close();
  }
  listener = () => {};
  if (refusal || !summary) {
    err(`auth-migrate: ${refusal?.message ?? 'the sync did not start'}`);
    err('nothing was written');
    if (values.json) io.stdout.write(JSON.stringify({ sync: true, stopped: 'fatal', error: refusal?.message }) + '\n');
    return 2;
  }
  const t = summary.totals;
  err('changes made (each read back from the core):');
  for (const line of changeLines(p.work.applied)) err(line);
  err(`journal ${paths.journal}`);
  err(`report ${paths.report}`);
  if (t.failed > 0) err(`failures ${paths.failures}: the ${t.failed} failed user(s) as canonical records (hashes and secrets: mode 0600)`);
  if (summary.stopped) err(`resume command saved in ${await writeResumeCommand(paths.journal, rerun.command)}`);
  if (values.json) {
    io.stdout.write(
      JSON.stringify({
        sync: true,
        base: p.base.path,
        total: t.total,
        changed: p.delta.changed,
        new: p.delta.new,
        gone: p.delta.gone,
        unchanged: p.delta.unchanged,
        imported: t.imported,
        alreadyPresent: t.alreadyPresent,
        failed: t.failed,
        skipped: t.skipped,
        resumed: t.resumed,
        applied: Object.fromEntries(p.work.applied),
        durationMs: summary.durationMs,
        journal: paths.journal,
        reportFile: paths.report,
        ...(summary.stopped ? { stopped: summary.stopped, resumeCommand: rerun.command } : {}),
        ...(summary.fatal ? { error: summary.fatal.message } : {}),
      }) + '\n',
    );
  }
  if (summary.stopped === 'fatal') {
    err(`auth-migrate: ${summary.fatal?.message ?? 'the sync stopped'}`);
    err(`once fixed, resume with: ${resumeCommand}`);
    return 2;
  }
  if (summary.stopped === 'requested') return 130;
  return t.failed + t.skipped > 0 ? 1 : 0;
}
