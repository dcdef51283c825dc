// `auth-migrate verify`: read the same sources and check the target: users present with the planned login
// methods, links and TOTP devices; known passwords sign in; on the sandbox, TOTP codes verify.
import { parseDisabledPolicy, profileSwitch } from '../migration/policies.js';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIO } from '../cli.js';
import { UsageError } from '../errors.js';
import { collectGarbage } from '../heap.js';
import { identityId, loadJournal, type RunIdentity } from '../migration/journal.js';
import { findRunJournal } from '../migration/run-folder.js';
import { forEachPooled } from '../migration/pool.js';
import {
  checkCredential,
  createAccountLookup,
  parseCredentials,
  verifyUser,
  type CredentialCheck,
  type UserVerification,
} from '../migration/verify.js';
import { streamValidatedRecords, validateSources } from '../records/validate.js';
import { parseSlice, sliceRecords } from '../migration/slice.js';
import { openTotpCheckLog } from '../migration/totp-checks.js';
import { QUICK_RETRY } from '../core-client/preflight.js';
import { resolveSourceOptions } from './source-options.js';
import { connectTarget, describeTarget, resolveTarget, SOURCE_OPTIONS, sourceFiles, TARGET_OPTIONS } from './target-options.js';

export const VERIFY_HELP = `Usage: auth-migrate verify <file>... [options]     (a file named - is standard input)

Check that the users of the export files are in the target core as planned.
Target:   --core URL | --sandbox [--store FILE]  --tenant T  --app A  --profile NAME
Keys:     --api-key KEY  --license-key KEY  --signer-key B64 (or the AUTH_MIGRATE_* variables)
Sources:  --format F  --hash-config FILE  --provider-map FILE  --keep-source-ids  --disabled skip|import|role:NAME
          --unusable-hashes skip|without-password|migrate-at-sign-in (as given to run)
Checks:   --credentials FILE   lines "email,password": each must sign in
          --totp-codes         verify each TOTP device with a code from its source secret (always on for
                               --sandbox; on a real core it spends codes and counts failed attempts)
          --journal FILE       the run's journal, to find users by the ids it recorded (default: the journal
                               of the newest run folder of this migration under --out DIR or the current folder)
Slice:    --skip N  --limit N  --only ID[,ID...]   check only that slice, as given to run
Output:   --json (one JSON document on stdout)  --concurrency N (default 16, as run)
Exit codes: 0 every user ok, 1 some missing, mismatched, skipped or refused a credential, 2 bad usage or fatal.
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

const MAX_LINES = 50;
/** Users not ok kept for --json (memory stays bounded on a million missing users); the rest are counted. */
const MAX_KEPT = 10_000;

export async function verifyCommand(argv: string[], io: CommandIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}. See \`auth-migrate verify --help\`.`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(VERIFY_HELP);
    return 0;
  }
  const err = (line: string) => io.stderr.write(line + '\n');
  const cwd = process.cwd();
  const resolved = await resolveTarget(values, io.env, cwd);
  const profile = resolved.profile?.profile;
  const files = sourceFiles(positionals, profile, cwd);
  const readOptions = await resolveSourceOptions(values, io.env, resolved.profile);
  if (!resolved.secrets.signerKey && readOptions.signerKey) resolved.secrets.signerKey = readOptions.signerKey;
  const plan = {
    keepSourceIds: profileSwitch('keep-source-ids', values['keep-source-ids'], values['no-keep-source-ids'], profile?.keepSourceIds),
    scryptAlgorithmName: values['scrypt-algorithm-name'] ?? profile?.scryptAlgorithmName,
    disabled: parseDisabledPolicy(values.disabled ?? profile?.disabled),
    unusableHashes: readOptions.unusableHashes,
  };
  const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : 16;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 512)
    throw new UsageError('--concurrency must be a whole number from 1 to 512');

  let credentials: ReturnType<typeof parseCredentials> = [];
  if (values.credentials !== undefined) {
    let text: string;
    try {
      text = await readFile(values.credentials, 'utf8');
    } catch (e) {
      throw new UsageError(`--credentials: cannot read ${values.credentials} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    try {
      credentials = parseCredentials(text);
    } catch (e) {
      throw new UsageError(`--credentials ${values.credentials}: ${(e as Error).message}`);
    }
  }

  const identity: RunIdentity = { sources: files, target: describeTarget(resolved.target) };
  // The run's journal: as given, else the one its run folder holds (run-folder.ts); the TOTP checks log sits beside it.
  const journalPath = resolve(
    cwd,
    values.journal ??
      (await findRunJournal(resolve(cwd, values.out ?? '.'), identity)) ??
      `auth-migrate-${identityId(identity)}.journal.ndjson`,
  );
  if (values.journal !== undefined && !existsSync(journalPath)) throw new UsageError(`--journal ${values.journal} does not exist`);

  // Validation first, the journal after (as run does): the first pass's duplicate tables are garbage by then, so the
  // two largest structures of the command are never held at once.
  const report = await validateSources(files, readOptions);
  collectGarbage(); // the first pass's duplicate tables are dead: freed now (heap.ts)
  const journal = existsSync(journalPath) ? (await loadJournal(journalPath)).users : undefined;
  collectGarbage();
  const checkTotpCodes = values['totp-codes'] ?? resolved.target.kind === 'sandbox';
  const totpLog = checkTotpCodes ? await openTotpCheckLog(`${journalPath}.totp-checks.ndjson`) : undefined;
  const connection = await connectTarget(resolved, {
    concurrency,
    onSandbox: (s) => err(`sandbox core at ${s.url}, store ${s.storePath}`),
  });
  // A core that is down is said at once, as `run`'s preflight does, not after a minute of retries per user.
  try {
    await connection.client.withRetry(QUICK_RETRY).hello();
  } catch (e) {
    await connection.close();
    throw e;
  }
  const lookup = createAccountLookup(connection.client);
  const counts = { total: 0, ok: 0, missing: 0, mismatch: 0, skipped: 0 };
  const problems: UserVerification[] = [];
  let notOk = 0;
  const creds: CredentialCheck[] = [];
  const started = Date.now();
  // Credentials lines whose email no source record has: said so instead of trying them (a refusal would only
  // say WRONG_CREDENTIALS_ERROR, and a real core counts it).
  const wanted = new Set(credentials.map((c) => c.email.trim().toLowerCase()));
  const inSource = new Set<string>();
  try {
    await forEachPooled(
      sliceRecords(streamValidatedRecords(files, readOptions, report), parseSlice(values)),
      concurrency,
      async (input) => {
        const email = input.record.email?.trim().toLowerCase();
        if (email !== undefined && wanted.has(email)) inSource.add(email);
        const v = await verifyUser(input, connection.client, { plan, journal, checkTotpCodes, totpLog, checkExtraDevices: true, lookup });
        counts.total += 1;
        counts[v.outcome] += 1;
        if (v.outcome !== 'ok') {
          notOk += 1;
          if (notOk <= MAX_LINES && !values.json) err(`${v.outcome}: ${v.id}: ${v.differences.join('; ')}`);
          if (values.json && problems.length < MAX_KEPT) problems.push(v);
        }
      },
    );
    for (const c of credentials) {
      const check = inSource.has(c.email.trim().toLowerCase())
        ? await checkCredential(connection.client, c.email, c.password)
        : { email: c.email, ok: false, status: 'NOT_IN_SOURCE' };
      creds.push(check);
      if (check.status === 'NOT_IN_SOURCE' && !values.json)
        err(`credentials line ${c.line}: ${c.email} is not a user of the source files (not tried)`);
      else if (!check.ok && !values.json) err(`credentials line ${c.line}: ${c.email} did not sign in (${check.status})`);
    }
  } finally {
    await connection.close();
  }
  const credFailed = creds.filter((c) => !c.ok).length;
  err(
    `verified ${counts.total} users in ${Date.now() - started} ms: ok ${counts.ok}, missing ${counts.missing}, mismatch ${counts.mismatch}, skipped ${counts.skipped}` +
      (creds.length > 0 ? `; credentials ${creds.length - credFailed}/${creds.length} signed in` : '') +
      (checkTotpCodes ? '; TOTP codes checked' : ''),
  );
  if (values.json) {
    io.stdout.write(
      JSON.stringify({
        ...counts,
        totpCodesChecked: checkTotpCodes,
        credentials: {
          checked: creds.length,
          ok: creds.length - credFailed,
          failed: creds.filter((c) => !c.ok).map((c) => ({ email: c.email, status: c.status })),
        },
        problems,
        ...(notOk > problems.length ? { problemsOmitted: notOk - problems.length } : {}),
      }) + '\n',
    );
  }
  return counts.missing + counts.mismatch + counts.skipped + credFailed > 0 ? 1 : 0;
}
