// `auth-migrate signin-status`: how far migration at first sign-in has come, read from the core for the users of a
// run's sign-in migration file: how many still wait, per algorithm and since when, and how the others ended; so the
// old system is retired on evidence. `--expire` ends the window: the waiting entries are removed (read back) and
// the users who never came back are listed (ids only); they keep the placeholder password (which never signs anyone in through the app's part): reset is their way in.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIO } from './io.js';
import { flagUsageError } from './flag-suggest.js';
import { UsageError, UserError } from '../errors.js';
import { pathsBesideJournal } from '../engine/report.js';
import { readJournalHead } from '../engine/sync/base.js';
import { targetOfJournal } from '../operations/rollback.js';
import { expireWaiting, readSignInFile, signInStatus, type SignInStatus } from '../signin/status.js';
import { connectTarget, flagsOfTarget, resolveTarget, TARGET_OPTIONS } from './target-options.js';

export const SIGNIN_STATUS_HELP = `Usage: auth-migrate signin-status (--journal FILE | --file SIGNIN-FILE | RUN-FOLDER) [options]

How many users of a run with --unusable-hashes migrate-at-sign-in still wait for their first sign-in, per
algorithm and since when, and how the others ended (signed in; a password set by reset or change; expired).
Target:   the run's own, read from its journal; or --core URL | --sandbox [--store FILE]  --tenant T  --app A
          --profile NAME
Keys:     --api-key KEY (or AUTH_MIGRATE_API_KEY)
Users:    --journal FILE (the run's journal: its sign-in migration file beside it), --file FILE, or a run folder
Expire:   --expire   end the window: remove every waiting legacy entry (each read back) and list those users.
                     They keep the placeholder password the run gave them: password reset (or another login method)
                     is their way in; the old password no longer works anywhere in the core.
Output:   --json (one JSON document on stdout)  --concurrency N (default 8)
Exit codes: 0 done, 1 an entry could not be removed, 2 bad usage or fatal.
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  journal: { type: 'string' },
  file: { type: 'string' },
  expire: { type: 'boolean' },
  json: { type: 'boolean' },
  concurrency: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const day = (ms: number | undefined): string => (ms === undefined ? '-' : new Date(ms).toISOString().slice(0, 10));

export function statusLines(s: SignInStatus): string[] {
  const lines = [
    `sign-in migration: ${s.users} user${s.users === 1 ? '' : 's'} with a legacy hash; ${s.waiting} still waiting; ended: ${s.ended['sign-in']} signed in, ${s.ended['password-set']} set a password (reset or change), ${s.ended.expired} expired, ${s.ended.sync} by a sync (a hash the core takes); ${s.noEntry} with no entry (not created by the run, or already in the core with a password of their own)${s.invalid > 0 ? `; ${s.invalid} with an entry the app ignores (not of this version's format: written by hand or without a MAC)` : ''}`,
  ];
  for (const [algorithm, a] of Object.entries(s.byAlgorithm).sort(([x], [y]) => x.localeCompare(y))) {
    lines.push(
      `  ${algorithm}: waiting ${a.waiting}${a.waiting > 0 ? ` (since ${day(a.waitingSince)})` : ''}, signed in ${a.ended['sign-in']}, password set ${a.ended['password-set']}, expired ${a.ended.expired}`,
    );
  }
  return lines;
}

export async function signInStatusCommand(argv: string[], io: CommandIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw flagUsageError(err, OPTIONS, 'signin-status');
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(SIGNIN_STATUS_HELP);
    return 0;
  }
  const cwd = process.cwd();
  const given = [values.journal, values.file, positionals[0]].filter((v) => v !== undefined);
  if (given.length !== 1 || positionals.length > 1)
    throw new UsageError(
      'name the users once: --journal FILE, --file SIGNIN-FILE or a run folder. See `auth-migrate signin-status --help`.',
    );
  const file = resolve(
    cwd,
    values.file ?? pathsBesideJournal(resolve(cwd, values.journal ?? `${positionals[0]!}/journal.ndjson`)).signIn ?? '',
  );
  if (!existsSync(file)) throw new UsageError(`no sign-in migration file at ${file} (a run writes it when some users have a legacy hash)`);
  const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : 8;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw new UsageError('--concurrency must be a whole number from 1 to 256');
  let users;
  try {
    users = await readSignInFile(file);
  } catch (e) {
    throw new UserError(`${(e as Error).message}; the file must be the one the run wrote`);
  }
  // The core: as given, else the run's own, read from its journal (as rollback does).
  const given_ = values.core !== undefined || values.sandbox || values.store !== undefined || values.profile !== undefined;
  const journal =
    values.journal !== undefined
      ? resolve(cwd, values.journal)
      : positionals[0] !== undefined
        ? resolve(cwd, positionals[0], 'journal.ndjson')
        : undefined;
  const head = !given_ && journal !== undefined ? await readJournalHead(journal) : undefined;
  if (head) io.stderr.write(`target ${head.identity.target} (the run's, from its journal)\n`);
  const resolved = await resolveTarget(head ? { ...values, ...flagsOfTarget(targetOfJournal(head.identity.target)) } : values, io.env, cwd);
  const connection = await connectTarget(resolved, {
    concurrency,
    onSandbox: (s) => io.stderr.write(`sandbox core at ${s.url}, store ${s.storePath}\n`),
  });
  try {
    const status = await signInStatus(connection.client, users, concurrency);
    const expired = values.expire ? await expireWaiting(connection.client, status.waitingUsers, concurrency) : undefined;
    if (values.json) {
      io.stdout.write(
        JSON.stringify({ file, ...status, ...(expired ? { expired: expired.expired, notExpired: expired.failed } : {}) }) + '\n',
      );
    } else {
      io.stdout.write(statusLines(status).join('\n') + '\n');
      if (expired) {
        io.stdout.write(
          `expired ${expired.expired.length} waiting entr${expired.expired.length === 1 ? 'y' : 'ies'}: these users never signed in with their old password and must reset it\n`,
        );
        for (const u of expired.expired)
          io.stdout.write(
            `  ${u.sourceId}${u.email ? ` ${u.email}` : ''} user ${u.userId} (${u.algorithm}, waiting since ${day(u.since)})\n`,
          );
        for (const u of expired.failed)
          io.stdout.write(`  NOT REMOVED ${u.sourceId} user ${u.userId}: the entry is still there; run again\n`);
      }
    }
    return expired && expired.failed.length > 0 ? 1 : 0;
  } finally {
    await connection.close();
  }
}
