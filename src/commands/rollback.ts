// `auth-migrate rollback --journal FILE`: remove exactly what a run made, read from its journal, on every --via path
// (never a user it found already present, never what anyone did since), through the core's removal APIs, each read
// back; resumable, with --dry-run (the same decisions, read-only) and --force. The run's own target unless given.
// Refuses a journal whose run is still going (the journal's lock), another target, and a core without its users.
// The shell of the rollback operation (src/operations/rollback.ts): argv in, lines out, a typed confirmation.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIO } from './io.js';
import { flagUsageError } from './flag-suggest.js';
import { UsageError } from '../errors.js';
import { describeAction, type UserDecision } from '../engine/rollback/decide.js';
import type { RollbackEvent } from '../engine/rollback/events.js';
import type { RollbackDecisions } from '../engine/rollback/operation.js';
import { rollbackMigration } from '../operations/rollback.js';
import { connectTarget, resolveSecrets, resolveTarget } from './target-options.js';
import { terminalAsking } from './confirm-prompt.js';
import { commonLines } from './run-lines.js';
import { TARGET_OPTIONS } from './target-options.js';

export const ROLLBACK_HELP = `Usage: auth-migrate rollback --journal FILE [target options] [--dry-run] [--force] [--json]

Remove from the target exactly what the run of that journal made, on any --via path: the users it created (each
login method, device and mapping it gave them), and on users it found already present, the logins, links, TOTP
devices and mapping it added. Users that were there before are never removed. A user changed since the run (a
login linked, a TOTP device added, an email changed) is left in place and listed. Every removal is read back.
Resumable: rerun the same command. The undo retires the journal (renamed <journal>.rolled-back): the next run of
the same migration starts afresh.
Target:   the run's own, read from the journal; or --core URL | --sandbox --store FILE  --tenant T  --app A
          --profile NAME, which must be the run's
Keys:     --api-key KEY (or AUTH_MIGRATE_API_KEY)  --license-key KEY
Confirm:  before a real core (--core, or the journal's) is emptied, the core (URL, app, tenant), the users it holds
          now and what would be removed are printed, and in a terminal you type the core's host to go on; --yes
          goes on without asking (scripts). Without a terminal (cron, CI, < /dev/null) a rollback of a real core
          is refused (exit 2, nothing removed) unless --yes is given. The sandbox is never asked about.
Output:   --dry-run (the same decisions, nothing changed)  --json (one summary on stdout)
          --force (also take the run's own logins, devices and mapping off users changed since; what others
          added stays)  --concurrency N (users at once, default 8)
Examples: auth-migrate rollback --journal ./night-2026-11-23T09-35-08Z/journal.ndjson --dry-run
          auth-migrate rollback --journal ./night-2026-11-23T09-35-08Z/journal.ndjson --yes
Exit codes: 0 done, 1 some users failed (listed; rerun to go on), 2 bad usage, a journal in use, of another
target, or a core that holds none of its users.
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  journal: { type: 'string' },
  'dry-run': { type: 'boolean' },
  force: { type: 'boolean' },
  concurrency: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const n = (x: number): string => x.toLocaleString('en-US');

function describeDecisions(d: RollbackDecisions): string {
  return (
    `would remove ${n(d.removed)} users, would undo the run's additions on ${n(d.undone)} users there before, ` +
    `would keep ${n(d.kept)} (changed since the run), ${n(d.gone)} gone already${d.doneBefore ? ` (${n(d.doneBefore)} by an earlier rollback)` : ''}; ` +
    `${n(d.actions)} actions`
  );
}

export async function rollbackCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (err) {
    throw flagUsageError(err, OPTIONS, 'rollback');
  }
  if (values.help) {
    io.stdout.write(ROLLBACK_HELP);
    return 0;
  }
  if (values.journal === undefined) throw new UsageError('say which run to undo: --journal FILE (its path was printed when it ran)');
  const concurrency = values.concurrency === undefined ? 8 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency must be a whole number of at least 1`);
  const err = (line: string) => io.stderr.write(line + '\n');
  const given = values.core !== undefined || values.sandbox || values.store !== undefined || values.profile !== undefined;
  const named = given ? await resolveTarget(values, io.env, process.cwd()) : undefined;
  // The keys: as given, else from the environment (the target may be the journal's own).
  const keys = named?.secrets ?? resolveSecrets(values, io.env);
  const progress = renderer(err);
  const printDecision = (u: UserDecision): void => {
    if (u.kind === 'remove' || u.kind === 'undo') for (const a of u.actions) io.stdout.write(`user ${u.user}: ${describeAction(a)}\n`);
    else if (u.kind === 'kept') io.stdout.write(`user ${u.user}: kept, changed since the run: ${u.reasons.join('; ')}\n`);
    for (const note of u.notes) io.stdout.write(`user ${u.user}: not undone: ${note}\n`);
  };
  // The operation (src/operations/rollback.ts) decides, asks before a real core is emptied, and undoes.
  const o = await rollbackMigration(
    {
      journal: resolve(values.journal),
      target: named?.target,
      force: values.force ?? false,
      concurrency,
      by: 'auth-migrate rollback',
      dryRun: values['dry-run'] === true,
    },
    {
      connect: (target, c) => connectTarget({ target, secrets: keys }, c),
      // No terminal to ask on and no --yes: the operation refuses a real core (given, or the journal's) at once.
      ...terminalAsking({ stdin: io.stdin ?? process.stdin, stderr: io.stderr }, values.yes === true),
      // A dry run prints each decision as it is made (never all of them held at once).
      ...(values['dry-run'] ? { onDecision: printDecision } : {}),
      onEvent: (e) => {
        if (e.type === 'rollback-target') {
          if (e.fromJournal) err(`target ${e.target} (the run's, from its journal)`);
        } else if (e.type === 'sandbox' || e.type === 'confirm' || e.type === 'refused') commonLines(e).forEach(err);
        else if (e.type !== 'rollback-decided') progress(e as RollbackEvent);
      },
    },
  );
  if (o.refusal) return o.exitCode;
  const d = o.decisions;
  if (!o.summary) {
    io.stdout.write(`dry run: ${describeDecisions(d)}; nothing was changed\n`);
    return 0;
  }
  const s = o.summary;
  for (const k of s.keptUsers.slice(0, 20)) err(`kept: user ${k.user}: changed since the run: ${k.reasons.join('; ')}`);
  if (s.keptUsers.length > 20) err(`kept: ... and ${n(s.keptUsers.length - 20)} more`);
  for (const f of s.failures.slice(0, 20)) err(`failed: ${f}`);
  for (const note of s.notUndone.slice(0, 20)) err(`not undone: ${note}`);
  err(
    `rollback: ${n(s.removed)} users removed, ${n(s.undone)} users there before restored, ${n(s.kept)} kept (changed since` +
      `${s.kept && !values.force ? "; --force takes the run's part off them" : ''}), ${n(s.gone)} gone already, ${n(s.failed)} failed; ` +
      `journal retired to ${s.journal}; log ${s.log}`,
  );
  if (values.json)
    io.stdout.write(
      JSON.stringify({
        users: s.users,
        removed: s.removed,
        undone: s.undone,
        kept: s.kept,
        gone: s.gone,
        doneBefore: s.doneBefore,
        actions: s.actions,
        failed: s.failed,
        notUndone: s.notUndone.length,
        journal: s.journal,
        log: s.log,
      }) + '\n',
    );
  return o.exitCode;
}

/** Progress on stderr, at most one line a second (and the last one). */
function renderer(err: (line: string) => void): (e: RollbackEvent) => void {
  let last = 0;
  return (e) => {
    if (e.type !== 'rollback-progress') return;
    const now = Date.now();
    if (e.done < e.total && now - last < 1000) return;
    last = now;
    // The check only reads: its counts are what the undo would do (nothing is removed before the question).
    if (e.phase === 'checking')
      err(
        `rollback: ${n(e.done)} of ${n(e.total)} users checked: would remove ${n(e.removed)}` +
          `${e.undone ? `, would take the run's additions off ${n(e.undone)}` : ''}, would keep ${n(e.kept)}` +
          `${e.failed ? `, ${n(e.failed)} could not be read` : ''}; nothing removed yet`,
      );
    else err(`rollback: ${n(e.done)} of ${n(e.total)} users undone (${n(e.removed)} removed, ${n(e.kept)} kept, ${n(e.failed)} failed)`);
  };
}
