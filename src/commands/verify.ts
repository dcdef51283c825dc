// `auth-migrate verify`: the headless shell of the verify operation (src/operations/verify.ts): argv into settings,
// its events into lines (a progress line about once a second), the outcome into an exit code.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { CommandIO } from './io.js';
import { flagUsageError } from './flag-suggest.js';
import { UsageError } from '../errors.js';
import { parseCredentials } from '../engine/verify.js';
import { runRequestOf } from './run-request.js';
import { connectTarget } from '../operations/target.js';
import { verifyMigration, type VerifyEvent } from '../operations/verify.js';
import { createVerifyLines } from './verify-lines.js';
import { SOURCE_OPTIONS, TARGET_OPTIONS } from './target-options.js';

export const VERIFY_HELP = `Usage: auth-migrate verify <file>... [options]     (a file named - is standard input)

Check that the users of the export files are in the target core as planned.

Examples:
  auth-migrate verify users.csv --format clerk --sandbox             the sandbox rehearsal (TOTP codes tried too)
  auth-migrate verify --profile night --credentials known.csv        a core, and passwords you know sign in
Target:   --core URL | --sandbox [--store FILE]  --tenant T  --app A  --profile NAME
Keys:     --api-key KEY  --license-key KEY  --signer-key B64 (or the AUTH_MIGRATE_* variables)
Sources:  --format F  --hash-config FILE  --provider-map FILE  --keep-source-ids  --disabled skip|import|role:NAME
          --unusable-hashes skip|without-password (as given to run)
Checks:   --credentials FILE   lines "email,password": each must sign in
          --totp-codes         verify each TOTP device with a code from its source secret (always on for
                               --sandbox; on a real core it spends codes and counts failed attempts)
          --journal FILE       the run's journal, to find users by the ids it recorded (default: the journal
                               of the newest run folder of this migration under --out DIR or the current folder)
Slice:    --skip N  --limit N  --only ID[,ID...]   check only that slice, as given to run
Output:   --json (one JSON document on stdout)  --concurrency N (default 16, as run)
Exit codes: 0 every user ok (users the run skipped on purpose, invalid or left out by a policy, are counted
            and listed, not failed), 1 some missing or mismatched, or a credential refused, 2 bad usage or fatal.
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  ...SOURCE_OPTIONS,
  credentials: { type: 'string' },
  'totp-codes': { type: 'boolean' },
  journal: { type: 'string' },
  out: { type: 'string' },
  'keep-source-ids': { type: 'boolean' },
  'no-keep-source-ids': { type: 'boolean' },
  'scrypt-algorithm-name': { type: 'string' },
  concurrency: { type: 'string' },
  skip: { type: 'string' },
  limit: { type: 'string' },
  only: { type: 'string', multiple: true },
  disabled: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function verifyCommand(argv: string[], io: CommandIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw flagUsageError(err, OPTIONS, 'verify');
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(VERIFY_HELP);
    return 0;
  }
  const cwd = process.cwd();
  const settings = await runRequestOf(values, { cwd, env: io.env, positionals, rerunArgs: [], readOnly: true });
  if (values.journal !== undefined && !existsSync(settings.output.journal!))
    throw new UsageError(`--journal ${values.journal} does not exist`);
  const credentials = values.credentials !== undefined ? await readCredentials(values.credentials) : undefined;
  const lines = createVerifyLines(io.stderr, { json: values.json === true });
  const request = { ...settings, totpCodes: values['totp-codes'], credentials };
  const outcome = await verifyMigration(request, { connect: (c) => connectTarget(settings, c), onEvent: (e: VerifyEvent) => lines(e) });
  if (values.json) {
    const failed = outcome.credentials.filter((c) => !c.ok);
    io.stdout.write(
      JSON.stringify({
        ...outcome.counts,
        totpCodesChecked: outcome.totpCodesChecked,
        credentials: {
          checked: outcome.credentials.length,
          ok: outcome.credentials.length - failed.length,
          failed: failed.map((c) => ({ email: c.email, status: c.status, ...(c.reason ? { reason: c.reason } : {}) })),
        },
        problems: outcome.problems,
        ...(outcome.notOk > outcome.problems.length ? { problemsOmitted: outcome.notOk - outcome.problems.length } : {}),
      }) + '\n',
    );
  }
  return outcome.exitCode;
}

async function readCredentials(path: string): Promise<ReturnType<typeof parseCredentials>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--credentials: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return parseCredentials(text);
  } catch (e) {
    throw new UsageError(`--credentials ${path}: ${(e as Error).message}`);
  }
}
