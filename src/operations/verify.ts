// What a verify does, for `auth-migrate verify` and the wizard's results screen: validate the same sources, find
// the run's journal, check every user in the core as planned (login methods, links, devices; on the sandbox a TOTP
// code per device), then try the known passwords. Users the run skipped on purpose (invalid records, left out by a
// policy) are counted, not failed: only missing or different users and refused credentials make it fail.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { QUICK_RETRY } from '../core-client/preflight.js';
import { collectGarbage } from '../heap.js';
import { identityId, loadJournal, type JournalUsersView } from '../migration/journal.js';
import { JournalUsers } from '../migration/journal-users.js';
import { forEachPooled } from '../migration/pool.js';
import { prepareRun, type PreparedRun } from '../migration/prepare.js';
import { findRunJournal } from '../migration/run-folder.js';
import { findSyncJournal, journalChain, readJournalHead } from '../migration/sync/base.js';
import { sliceRecords, sliceTotal } from '../migration/slice.js';
import { openTotpCheckLog } from '../migration/totp-checks.js';
import { checkCredential, createAccountLookup, verifyUser, type CredentialCheck, type UserVerification } from '../migration/verify.js';
import { streamValidatedRecords } from '../records/validate.js';
import type { CommonEvent } from './events.js';
import type { RunSettings } from './settings.js';
import { describeTarget, type ConnectOptions, type Connection } from './target.js';

export interface VerifyCounts {
  total: number;
  ok: number;
  missing: number;
  mismatch: number;
  skipped: number;
}

export type VerifyEvent =
  | CommonEvent
  | { type: 'verify-started'; total: number; journal?: string; journalNote?: string; at: number }
  | { type: 'verify-user'; result: UserVerification; counts: VerifyCounts; at: number }
  | { type: 'credential'; line: number; check: CredentialCheck }
  | {
      type: 'verify-finished';
      counts: VerifyCounts;
      durationMs: number;
      totpCodesChecked: boolean;
      /** notMigrated: refused for users the run leaves out (expected: not a failure). */
      credentials: { checked: number; ok: number; notMigrated?: number };
      /** Users migrated at first sign-in still waiting for it, per algorithm (absent when none). */
      waiting?: Record<string, number>;
    };

export interface VerifyOptions {
  /** Try each TOTP device with a code from its source secret (default: on the sandbox only; a real core counts attempts). */
  totpCodes?: boolean;
  credentials?: Array<{ email: string; password: string; line: number }>;
  /** Users not ok kept in the outcome (the rest are counted): memory stays bounded on a million missing users. */
  keep?: number;
}

export interface VerifyShell {
  connect(options: ConnectOptions): Promise<Connection>;
  onEvent(e: VerifyEvent): void;
  prepared?: PreparedRun;
}

export interface VerifyOutcome {
  counts: VerifyCounts;
  /** The first users not ok (at most `keep`), and how many there were in all. */
  problems: UserVerification[];
  notOk: number;
  credentials: CredentialCheck[];
  totpCodesChecked: boolean;
  totpChecksFile?: string;
  durationMs: number;
  /** 1 when a user is missing or different or a credential was refused; expected skips do not fail a verify. */
  exitCode: number;
}

export async function verifyMigration(settings: RunSettings, shell: VerifyShell, o: VerifyOptions = {}): Promise<VerifyOutcome> {
  const emit = shell.onEvent;
  const identity = { sources: settings.files, target: describeTarget(settings.target) };
  // The run's journal: as given, else the one its run folder holds; the TOTP checks log sits beside it.
  const found =
    settings.output.journal ??
    (await findRunJournal(settings.output.out, identity)) ??
    (await findSyncJournal(settings.output.out, identity.target, identity.sources))?.path;
  const journalPath = found ?? resolve(settings.output.out, `auth-migrate-${identityId(identity)}.journal.ndjson`);
  // Validation first, the journal after: the first pass's tables are garbage by then (never both held at once).
  const prepared = shell.prepared ?? (await prepareRun(settings.files, settings.read, settings.plan));
  emit({ type: 'validated', summary: prepared.report.summary, unreadable: prepared.unreadable });
  collectGarbage();
  const chain = existsSync(journalPath) ? await loadRunChain(journalPath) : undefined;
  const journal = chain?.users;
  collectGarbage();
  const totpCodesChecked = o.totpCodes ?? settings.target.kind === 'sandbox';
  const totpChecksFile = totpCodesChecked ? `${journalPath}.totp-checks.ndjson` : undefined;
  const totpLog = totpChecksFile ? await openTotpCheckLog(totpChecksFile) : undefined;
  const conn = await shell.connect({ concurrency: settings.concurrency });
  const counts: VerifyCounts = { total: 0, ok: 0, missing: 0, mismatch: 0, skipped: 0 };
  const problems: UserVerification[] = [];
  const credentials: CredentialCheck[] = [];
  const waiting: Record<string, number> = {};
  let notOk = 0;
  const started = Date.now();
  try {
    if (conn.sandbox) emit({ type: 'sandbox', url: conn.sandbox.url, store: conn.sandbox.storePath });
    // A core that is down is said at once, as the run's preflight does, not after a minute of retries per user.
    await conn.client.withRetry(QUICK_RETRY).hello();
    const total = sliceTotal(prepared.report.summary.records, settings.slice);
    emit({
      type: 'verify-started',
      total,
      ...(journal ? { journal: journalPath } : {}),
      ...(chain?.note ? { journalNote: chain.note } : {}),
      at: started,
    });
    const lookup = createAccountLookup(conn.client);
    // Credentials whose email no source record has are said so instead of tried (a real core counts refusals).
    const wanted = new Set((o.credentials ?? []).map((c) => c.email.trim().toLowerCase()));
    const inSource = new Set<string>();
    // Users of the credentials the run leaves out (disabled in the source...): said so, with why, not tried.
    const notMigrated = new Map<string, string>();
    const inputs = sliceRecords(streamValidatedRecords(settings.files, settings.read, prepared.report), settings.slice);
    await forEachPooled(inputs, settings.concurrency, async (input) => {
      const email = input.record.email?.trim().toLowerCase();
      if (email !== undefined && wanted.has(email)) inSource.add(email);
      const options = { plan: settings.plan, journal, checkTotpCodes: totpCodesChecked, totpLog, checkExtraDevices: true, lookup };
      const result = await verifyUser(input, conn.client, options);
      if (email !== undefined && wanted.has(email) && result.outcome === 'skipped') notMigrated.set(email, result.differences.join('; '));
      counts.total += 1;
      counts[result.outcome] += 1;
      if (result.waiting !== undefined) waiting[result.waiting] = (waiting[result.waiting] ?? 0) + 1;
      if (result.outcome !== 'ok' && result.outcome !== 'skipped') {
        notOk += 1;
        if (problems.length < (o.keep ?? 10_000)) problems.push(result);
      }
      emit({ type: 'verify-user', result, counts: { ...counts }, at: Date.now() });
    });
    for (const c of o.credentials ?? []) {
      const key = c.email.trim().toLowerCase();
      const why = notMigrated.get(key);
      let check: CredentialCheck = inSource.has(key)
        ? await checkCredential(conn.client, c.email, c.password)
        : { email: c.email, ok: false, status: 'NOT_IN_SOURCE' };
      // Refused for a user the run never migrated: that is why, not "wrong credentials".
      if (!check.ok && why !== undefined) check = { email: c.email, ok: false, status: 'NOT_MIGRATED', reason: why };
      credentials.push(check);
      emit({ type: 'credential', line: c.line, check });
    }
  } finally {
    await conn.close();
  }
  const durationMs = Date.now() - started;
  // A user the run leaves out is expected not to sign in: counted apart, not a failure (as its skip is not).
  const notMigratedCount = credentials.filter((c) => c.status === 'NOT_MIGRATED').length;
  const refused = credentials.filter((c) => !c.ok).length - notMigratedCount;
  const signedIn = { checked: credentials.length, ok: credentials.length - refused - notMigratedCount, notMigrated: notMigratedCount };
  const anyWaiting = Object.keys(waiting).length > 0;
  emit({ type: 'verify-finished', counts, durationMs, totpCodesChecked, credentials: signedIn, ...(anyWaiting ? { waiting } : {}) });
  return {
    counts,
    problems,
    notOk,
    credentials,
    totpCodesChecked,
    ...(totpChecksFile ? { totpChecksFile } : {}),
    durationMs,
    exitCode: counts.missing + counts.mismatch + refused > 0 ? 1 : 0,
  };
}

/**
 * The users of a journal; a sync's journal with the runs it brought up to date, oldest first (a user the sync
 * changed has the sync's steps; one it left alone, what the first run made of it: join dates it kept included).
 */
async function loadRunChain(path: string): Promise<{ users: JournalUsersView; note?: string }> {
  const head = await readJournalHead(path);
  let chain: Array<{ path: string }> = [{ path }];
  let note: string | undefined;
  if (head?.sync) {
    try {
      chain = await journalChain(head);
    } catch (err) {
      // verify only reads: it goes on with what it has, and says what it could not check.
      note = `${(err as Error).message}; verifying with the sync's journal alone (join dates of the users it left alone are not checked)`;
    }
  }
  const users = new JournalUsers();
  for (const link of chain) await loadJournal(link.path, users);
  return { users, ...(note ? { note } : {}) };
}
