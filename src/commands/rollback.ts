// `auth-migrate rollback --journal FILE`: remove exactly what a run created, read from its journal (never a user
// it found already present), through the core's removal APIs; resumable (its own journal of actions done beside
// the run's), with --dry-run. Refuses a journal whose run is still going (the journal's lock) or another target.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIO } from '../cli.js';
import { UsageError } from '../errors.js';
import { actionKey, describeAction } from '../migration/rollback-plan.js';
import { performRollback, prepareRollback } from '../migration/rollback.js';
import { connectTarget, describeTarget, resolveTarget, TARGET_OPTIONS } from './target-options.js';

export const ROLLBACK_HELP = `Usage: auth-migrate rollback --journal FILE [target options] [--dry-run] [--json]

Remove from the target exactly what the run of that journal created: the users it imported (with their login
methods, mapping, verification and TOTP devices), and, on users it found already present, the links, TOTP devices
and mapping it added. Users that were there before the run are never removed. Resumable: rerun the same command.
Target:   --core URL | --sandbox --store FILE  --tenant T  --app A  --profile NAME  (the run's target)
Keys:     --api-key KEY (or AUTH_MIGRATE_API_KEY)  --license-key KEY
Output:   --dry-run (list the actions, change nothing)  --json (one summary on stdout)
Exit codes: 0 done, 1 some actions failed, 2 bad usage, a journal still in use or of another target.
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  journal: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function rollbackCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}. See \`auth-migrate rollback --help\`.`);
  }
  if (values.help) {
    io.stdout.write(ROLLBACK_HELP);
    return 0;
  }
  if (values.journal === undefined) throw new UsageError('say which run to undo: --journal FILE (its path was printed when it ran)');
  const err = (line: string) => io.stderr.write(line + '\n');
  const journalPath = resolve(values.journal);
  if (!existsSync(journalPath)) throw new UsageError(`--journal ${values.journal} does not exist`);
  const resolved = await resolveTarget(values, io.env, process.cwd());
  // The run holds the journal's lock while it goes: a journal still being written is refused.
  const prepared = await prepareRollback(journalPath, describeTarget(resolved.target), 'auth-migrate rollback');
  try {
    const { plans, done } = prepared;
    const total = plans.reduce((n, p) => n + p.actions.length, 0);
    if (values['dry-run']) {
      for (const p of plans) {
        for (const a of p.actions)
          io.stdout.write(`user ${p.user}: ${done.has(actionKey(p.user, a)) ? '(done) ' : ''}${describeAction(a)}\n`);
        for (const n of p.notUndone) io.stdout.write(`user ${p.user}: not undone: ${n}\n`);
      }
      io.stdout.write(`dry run: ${total} actions for ${plans.length} users; nothing was changed\n`);
      return 0;
    }
    const conn = await connectTarget(resolved, { concurrency: 4, onSandbox: (s) => err(`sandbox core at ${s.url}, store ${s.storePath}`) });
    let s;
    try {
      s = await performRollback(conn.client, prepared);
    } finally {
      await conn.close();
    }
    for (const f of s.failed.slice(0, 20)) err(`failed: ${f}`);
    for (const n of s.notUndone.slice(0, 20)) err(`not undone: ${n}`);
    err(
      `rollback: ${s.performed} actions done, ${s.doneBefore} done before, ${s.failed.length} failed, for ${s.users} users; log ${s.log}`,
    );
    if (values.json)
      io.stdout.write(
        JSON.stringify({
          users: s.users,
          actions: s.actions,
          performed: s.performed,
          doneBefore: s.doneBefore,
          failed: s.failed.length,
          notUndone: s.notUndone.length,
          log: s.log,
        }) + '\n',
      );
    return s.failed.length > 0 ? 1 : 0;
  } finally {
    await prepared.release();
  }
}
