// `auth-migrate run --sync`: the headless shell of the sync operation (src/operations/sync.ts), the second pass of
// a cutover (docs/migration.md, "Two-pass cutover"). It turns the operation's events into lines, a signal into a
// safe stop and the outcome into an exit code; the wizard renders the same operation (ui/services/sync.ts).
import type { CommandIO } from './io.js';
import { UsageError } from '../errors.js';
import { drained } from '../engine/report.js';
import { skippedLines } from '../operations/skipped.js';
import { exitOnSignals, stopOnSignals, type SignalGuard } from '../engine/pace/stop-signals.js';
import { readJournalHead } from '../engine/sync/base.js';
import { rerunCommand, rerunText } from '../operations/rerun.js';
import type { PlanRequest, RunRequest } from '../operations/requests.js';
import { AUTHORITY, previewSync, startSync, syncSetupOf, type SyncOutcome, type SyncPreview } from '../operations/sync.js';
import { connectTarget, describeTarget } from '../operations/target.js';
import { terminalAsking } from './confirm-prompt.js';
import { createRunLines } from './run-lines.js';

export interface SyncCommandInput {
  argv: string[];
  io: CommandIO;
  cwd: string;
  /** RunRequest when a target is named (a dry run may name only --from-journal). */
  settings: PlanRequest | RunRequest;
  values: {
    'from-journal'?: string;
    'remove-missing'?: boolean;
    'dry-run'?: boolean;
    json?: boolean;
    'json-events'?: boolean;
    steps?: boolean;
    yes?: boolean;
  };
}

const n = (x: number): string => x.toLocaleString('en-US');

/** The preview's lines, the same ones the wizard's plan screen shows. */
export function previewLines(p: Omit<SyncPreview, 'prepared'>): string[] {
  return [
    `sync with the earlier run ${p.base}${p.runs > 1 ? ` (run ${p.runs} of this migration)` : ''}`,
    ...(p.resume ? [`carrying on from the sync that stopped: ${p.resume}`] : []),
    ...(p.note ? [`note: ${p.note}`] : []),
    ...p.deltaLines,
  ];
}

export async function runSyncCommand(c: SyncCommandInput): Promise<number> {
  const { io, values, settings } = c;
  const err = (line: string) => io.stderr.write(line + '\n');
  const run = 'target' in settings && settings.target ? (settings as RunRequest) : undefined;
  let target = run ? describeTarget(run.target) : undefined;
  if (target === undefined && values['from-journal'] !== undefined)
    target = (await readJournalHead(values['from-journal']))?.identity.target;
  if (target === undefined)
    throw new UsageError(
      'say which core the sync brings up to date: --core URL or --sandbox --store FILE (or, for a --dry-run, --from-journal FILE)',
    );
  const options = {
    removeMissing: values['remove-missing'] ?? false,
    cwd: c.cwd,
    ...(values['from-journal'] !== undefined ? { fromJournal: values['from-journal'] } : {}),
  };
  const request = syncSetupOf(settings, target, options);

  if (values['dry-run']) {
    const p = await previewSync(request, values.steps ? Infinity : 5);
    const s = p.prepared.report.summary;
    err(`validated ${s.records} records: ${s.valid} valid, ${s.invalid} invalid (skipped), ${s.errors} errors, ${s.warnings} warnings`);
    const out = (line: string) => void (values.json ? undefined : io.stdout.write(line + '\n'));
    for (const line of [...previewLines(p), ...p.sample, 'changes planned (on a core as the earlier run left it):', ...p.changeLines])
      out(line);
    out(AUTHORITY);
    out(`dry run: nothing was written; ${n(p.delta.unchanged)} unchanged users cost no request.`);
    if (values.json)
      io.stdout.write(JSON.stringify({ dryRun: true, total: p.delta.records, sync: p.delta, changes: p.changes, base: p.base }) + '\n');
    return 0;
  }
  if (!run) throw new UsageError('say which core to bring up to date: --core URL or --sandbox --store FILE');

  // Until the first write a signal ends the command at once; from the run folder on it stops the sync safely.
  let signals: SignalGuard = exitOnSignals(err, rerunCommand('run', c.argv, { exports: [] }).command);
  const lines = createRunLines(io.stderr, { jsonEvents: values['json-events'] === true });
  let outcome: SyncOutcome;
  try {
    const sync = startSync(
      { ...run, sync: options },
      {
        connect: (o) => connectTarget(run, o),
        // No terminal to ask on and no --yes: the session refuses a real core before anything is read or sent.
        ...terminalAsking({ stdin: io.stdin ?? process.stdin, stderr: io.stderr }, values.yes === true),
        onEvent: (e) => {
          if (e.type === 'sync-delta') {
            if (values['json-events']) err(JSON.stringify(e));
            else for (const line of previewLines(e.preview)) err(line);
            if (e.preview.hasWork && !values['json-events']) err(AUTHORITY);
            return;
          }
          if (e.type === 'finished' && !values['json-events']) {
            // A sync changes users: "imported" would misname a removal or an update (the changes per kind follow).
            const t = e.totals;
            const written = t.imported;
            err(
              `${e.stopped ? 'stopped' : 'finished'}: ${n(written)} user${written === 1 ? '' : 's'} written (added, changed or removed), ` +
                `${n(t.alreadyPresent)} already as the export says, failed ${n(t.failed)}, skipped ${n(t.skipped)}`,
            );
            return;
          }
          if (e.type === 'run-folder') {
            signals.remove();
            signals = stopOnSignals(err, () => sync.stop());
            if (!values['json-events']) err(`sync folder ${e.folder}`);
          }
          lines(e);
        },
        drained: () => drained(io.stderr),
      },
    );
    outcome = await sync.done;
  } finally {
    signals.remove();
  }
  return report(outcome, c);
}

function report(o: SyncOutcome, c: SyncCommandInput): number {
  const { io, values } = c;
  const err = (line: string) => io.stderr.write(line + '\n');
  const json = (v: Record<string, unknown>) => void (values.json && io.stdout.write(JSON.stringify(v) + '\n'));
  const p = o.preview;
  if (o.nothingChanged) {
    // Nothing to write: no core was contacted and no run folder was made.
    err(`nothing changed since the earlier run: no request was sent, nothing was written (base ${p?.base})`);
    json({ sync: true, changed: 0, total: 0, base: p?.base, applied: {} });
    return o.exitCode;
  }
  if (o.stopped === 'refused') {
    err('nothing was written');
    json({ sync: true, stopped: 'fatal', refused: o.refusal?.code, error: o.refusal?.message });
    return o.exitCode;
  }
  const t = o.totals;
  err('changes made (each read back from the core):');
  for (const [kind, count] of Object.entries(o.applied)) if (count) err(`  ${kind}: ${n(count)}`);
  if (o.skipped) skippedLines(t.skipped, o.skipped, o.paths?.report).forEach(err);
  if (o.paths) {
    err(`journal ${o.paths.journal}`);
    err(`report ${o.paths.report}`);
    if (t.failed > 0)
      err(`failures ${o.paths.failures}: the ${t.failed} failed user(s) as canonical records (hashes and secrets: mode 0600)`);
  }
  if (o.sandboxStore) err(`sandbox store ${o.sandboxStore}`);
  if (o.resumeFile) err(`resume command saved in ${o.resumeFile}`);
  json({
    sync: true,
    base: p?.base,
    total: t.total,
    changed: p?.delta.changed,
    new: p?.delta.new,
    gone: p?.delta.gone,
    unchanged: p?.delta.unchanged,
    imported: t.imported,
    alreadyPresent: t.alreadyPresent,
    failed: t.failed,
    skipped: t.skipped,
    resumed: t.resumed,
    applied: o.applied,
    durationMs: o.durationMs,
    journal: o.paths?.journal,
    reportFile: o.paths?.report,
    ...(o.stopped ? { stopped: o.stopped, resumeCommand: o.rerun.command } : {}),
    ...(o.error ? { error: o.error } : {}),
  });
  if (o.stopped === 'fatal') {
    err(`auth-migrate: ${o.error ?? 'the sync stopped'}`);
    err(`once fixed, resume with: ${rerunText(o.rerun)}`);
  }
  if (o.stopped === 'requested') err(`stopped; to resume: ${rerunText(o.rerun)}`);
  return o.exitCode;
}
