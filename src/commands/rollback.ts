// `auth-migrate rollback --journal FILE`: remove exactly what a run created, read from its journal (never a user
// it found already present), through the core's removal APIs; resumable (its own journal of actions done beside
// the run's), with --dry-run. Refuses a journal whose run is still going (the journal's lock) or another target.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIO } from '../cli.js';
import type { CoreClient } from '../core-client/types.js';
import { UsageError, UserError } from '../errors.js';
import { acquireLock } from '../files/lock.js';
import { openPrivate } from '../files/private.js';
import { actionKey, describeAction, planUserRollback, readJournalSteps, type RollbackAction } from '../migration/rollback-plan.js';
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

const OPTIONS = { ...TARGET_OPTIONS, journal: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

async function perform(core: CoreClient, a: RollbackAction): Promise<void> {
  const post = (path: string, body: unknown) => core.raw({ method: 'POST', path, scope: 'app', body });
  switch (a.kind) {
    case 'unlink':
    case 'demote':
      await post('/recipe/accountlinking/user/unlink', { recipeUserId: a.userId });
      return;
    case 'remove-device':
      await core.removeTotpDevice(a.userId, a.deviceName);
      return;
    case 'remove-mapping':
      await post('/recipe/userid/map/remove', { userId: a.externalUserId, userIdType: 'EXTERNAL' });
      return;
    case 'remove-user':
      await post('/user/remove', { userId: a.userId, removeAllLinkedAccounts: a.removeAllLinkedAccounts });
      return;
  }
}

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
  // The run holds this lock while it goes: a journal still being written is refused.
  const lock = await acquireLock(journalPath, 'the journal', 'auth-migrate rollback');
  try {
    const { identity, users } = await readJournalSteps(journalPath);
    const resolved = await resolveTarget(values, io.env, process.cwd());
    const target = describeTarget(resolved.target);
    if (identity && identity.target !== target) {
      throw new UserError(`the journal ${journalPath} belongs to a run into ${identity.target}, not ${target}: give the run's own target`);
    }
    const plans = [...users].map(([user, steps]) => planUserRollback(user, steps)).filter((p) => p.actions.length + p.notUndone.length > 0);
    const donePath = `${journalPath}.rollback.ndjson`;
    const done = new Set(existsSync(donePath) ? readFileSync(donePath, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { key: string }).key) : []);
    const total = plans.reduce((n, p) => n + p.actions.length, 0);
    if (values['dry-run']) {
      for (const p of plans) {
        for (const a of p.actions) io.stdout.write(`user ${p.user}: ${done.has(actionKey(p.user, a)) ? '(done) ' : ''}${describeAction(a)}\n`);
        for (const n of p.notUndone) io.stdout.write(`user ${p.user}: not undone: ${n}\n`);
      }
      io.stdout.write(`dry run: ${total} actions for ${plans.length} users; nothing was changed\n`);
      return 0;
    }
    const conn = await connectTarget(resolved, { concurrency: 4, onSandbox: (s) => err(`sandbox core at ${s.url}, store ${s.storePath}`) });
    const log = await openPrivate(donePath, 'a');
    let performed = 0;
    let skipped = 0;
    const failures: string[] = [];
    try {
      for (const p of plans) {
        for (const a of p.actions) {
          const k = actionKey(p.user, a);
          if (done.has(k)) {
            skipped += 1;
            continue;
          }
          try {
            await perform(conn.client, a);
            await log.appendFile(JSON.stringify({ key: k }) + '\n');
            performed += 1;
          } catch (e) {
            failures.push(`user ${p.user}: ${describeAction(a)}: ${(e as Error).message}`);
            if ((e as { fatal?: boolean }).fatal) throw e;
            break; // the later actions of this user depend on this one
          }
        }
      }
      await log.sync();
    } finally {
      await log.close();
      await conn.close();
    }
    const notUndone = plans.flatMap((p) => p.notUndone.map((n) => `user ${p.user}: ${n}`));
    for (const f of failures.slice(0, 20)) err(`failed: ${f}`);
    for (const n of notUndone.slice(0, 20)) err(`not undone: ${n}`);
    err(`rollback: ${performed} actions done, ${skipped} done before, ${failures.length} failed, for ${plans.length} users; log ${donePath}`);
    if (values.json) io.stdout.write(JSON.stringify({ users: plans.length, actions: total, performed, doneBefore: skipped, failed: failures.length, notUndone: notUndone.length, log: donePath }) + '\n');
    return failures.length > 0 ? 1 : 0;
  } finally {
    await lock.release();
  }
}
