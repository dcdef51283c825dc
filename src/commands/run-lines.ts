// The headless shell of the run operation: its events as lines on stderr (the runner's progress through the plain
// renderer, redrawn in place on a terminal), or every event as one JSON line with --json-events.
import { createPlainRenderer, terminalLines } from '../engine/render/plain.js';
import type { RunEvent } from '../engine/events.js';
import { confirmationLines } from '../operations/confirm.js';
import { lossLine } from '../operations/partial.js';
import type { CommonEvent, RunOperationEvent } from '../operations/events.js';
import type { ValidationSummary } from '../records/validate.js';
import { formatCount } from '../numbers.js';

export function validationLine(s: ValidationSummary): string {
  const n = formatCount;
  return `validated ${n(s.records)} records: ${n(s.valid)} valid, ${n(s.invalid)} invalid (skipped), ${n(s.errors)} errors, ${n(s.warnings)} warnings`;
}

/** The lines of the phases every operation shares (validation, partial sources, sandbox, preflight, confirm, refusal). */
export function commonLines(e: CommonEvent): string[] {
  switch (e.type) {
    case 'validated': {
      const lines = [validationLine(e.summary)];
      // Source fields the readers could not carry: named here too, so a run alone never drops data silently.
      const dropped = e.summary.fields?.dropped ?? [];
      if (dropped.length > 0)
        lines.push(
          `source fields not carried over: ${dropped.map((d) => `${d.format} ${d.field} (${d.records})`).join(', ')}; \`auth-migrate validate\` says why`,
        );
      if (e.unreadable > 0)
        lines.push(`${e.unreadable} source items could not be read as users and are not migrated; \`auth-migrate validate\` lists them`);
      return lines;
    }
    case 'partial':
      return e.allowed ? e.losses.map((l) => `going on without them (--allow-partial): ${lossLine(l)}`) : [];
    case 'sandbox':
      return [`sandbox core at ${e.url}, store ${e.store}`];
    case 'preflight':
      return [
        ...e.findings.filter((f) => f.level !== 'info').map((f) => `preflight ${f.level}: ${f.message}`),
        ...(e.learnt ? [`preflight: the core takes external scrypt hashes as "${e.scryptAlgorithmName}"`] : []),
      ];
    case 'confirm':
      return confirmationLines(e.confirmation);
    case 'refused':
      return [`auth-migrate: ${e.message}`, ...(e.fix ? [`to go on: ${e.fix}`] : [])];
  }
}

function operationLines(e: Exclude<RunOperationEvent, RunEvent>): string[] {
  if (e.type !== 'run-folder') return commonLines(e);
  const lines = [`target ${e.url} (app ${e.app}, tenant ${e.tenant})`];
  const where = e.folder ? `run folder ${e.folder}` : `journal ${e.journal}`;
  lines.push(e.carriedOn ? `${where} (carrying on from the earlier run of this migration: ${e.fromJournal} users finished)` : where);
  if (e.gitTree && e.folder)
    lines.push(
      `note: the run folder is inside the git work tree ${e.gitTree}; it holds emails and ids, so it ignores itself (.gitignore); --out DIR puts run folders elsewhere`,
    );
  else if (e.gitTree)
    lines.push(`note: the journal is inside the git work tree ${e.gitTree}; its files hold emails and ids: keep them out of git`);
  return lines;
}

/** The operation's own phases; every other event is the runner's (whatever new kinds the engine adds). */
const PHASES = new Set<string>(['validated', 'partial', 'sandbox', 'preflight', 'confirm', 'refused', 'run-folder']);
const isRunEvent = (e: RunOperationEvent): e is RunEvent => !PHASES.has(e.type);

export function createRunLines(stderr: NodeJS.WritableStream, o: { jsonEvents: boolean }): (e: RunOperationEvent) => void {
  const err = (line: string) => stderr.write(line + '\n');
  if (o.jsonEvents) return (e) => err(JSON.stringify(e));
  // On a terminal the progress line is redrawn in place; on a pipe every progress line is a line of its own.
  const tty = (stderr as NodeJS.WriteStream).isTTY === true;
  const sink = tty ? terminalLines(stderr) : { write: err };
  const progress = createPlainRenderer(sink);
  return (e) => {
    if (isRunEvent(e)) progress(e);
    else for (const line of operationLines(e)) sink.write(line);
  };
}
