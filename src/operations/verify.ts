// What a verify does, for `auth-migrate verify` and the wizard's results screen: validate the same sources, find
// the run's journal, check every user in the core as planned (login methods, links, devices; on the sandbox a TOTP
// code per device), then try the known passwords. Users the run skipped on purpose (invalid records, left out by a
// policy) are counted, not failed: only missing or different users and refused credentials make it fail.
// Invariant: users the run skipped on purpose are counted, never failed.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { QUICK_RETRY } from '../core-client/preflight.js';
import { collectGarbage } from '../heap.js';
import { identityId, loadJournal, type JournalUsersView } from '../engine/journal/journal.js';
import { JournalUsers } from '../engine/journal/users.js';
import { forEachPooled } from '../engine/pace/pool.js';
import { prepareRun, type PreparedRun } from '../engine/plan/prepare.js';
import { findRunJournal } from '../engine/run-folder.js';
import { findSyncJournal, journalChain, readJournalHead } from '../engine/sync/base.js';
import { sliceRecords, sliceTotal } from '../engine/plan/slice.js';
import { openTotpCheckLog } from '../engine/plan/totp-checks.js';
import { checkCredential, createAccountLookup, verifyUser, type CredentialCheck, type UserVerification } from '../engine/verify.js';
import { streamValidatedRecords } from '../records/validate.js';
import type { CommonEvent } from './events.js';
import type { VerifyRequest } from './requests.js';
import { describeTarget, type ConnectOptions, type Connection } from './target.js';

export type { VerifyRequest };

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

export async function verifyMigration(request: VerifyRequest, shell: VerifyShell): Promise<VerifyOutcome> {
  const emit = shell.onEvent;
  const journalPath = await journalOf(request);
  // Validation first, the journal after: the first pass's tables are garbage by then (never both held at once).
  const prepared = shell.prepared ?? (await prepareRun(request.files, request.read, request.plan));
  emit({ type: 'validated', summary: prepared.report.summary, unreadable: prepared.unreadable });
  collectGarbage();
  const chain = existsSync(journalPath) ? await loadRunChain(journalPath) : undefined;
  collectGarbage();
  const totpCodesChecked = request.totpCodes ?? request.target.kind === 'sandbox';
  const totpChecksFile = totpCodesChecked ? `${journalPath}.totp-checks.ndjson` : undefined;
  const totpLog = totpChecksFile ? await openTotpCheckLog(totpChecksFile) : undefined;
  const conn = await shell.connect({ concurrency: request.concurrency });
  const started = Date.now();
  let found: Found;
  try {
    if (conn.sandbox) emit({ type: 'sandbox', url: conn.sandbox.url, store: conn.sandbox.storePath });
    // A core that is down is said at once, as the run's preflight does, not after a minute of retries per user.
    await conn.client.withRetry(QUICK_RETRY).hello();
    const total = sliceTotal(prepared.report.summary.records, request.slice);
    const journal = chain ? { journal: journalPath } : {};
    emit({ type: 'verify-started', total, ...journal, ...(chain?.note ? { journalNote: chain.note } : {}), at: started });
    const check = { plan: request.plan, journal: chain?.users, checkTotpCodes: totpCodesChecked, totpLog, checkExtraDevices: true };
    found = await verifyUsers(request, prepared, conn, check, emit);
    found.credentials = await verifyCredentials(request.credentials ?? [], found, conn, emit);
  } finally {
    await conn.close();
  }
  return verifyEnd(found, Date.now() - started, { totpCodesChecked, totpChecksFile }, emit);
}

/** The run's journal: as given, else the one its run folder holds (or a sync's); the TOTP checks log sits beside it. */
async function journalOf(request: VerifyRequest): Promise<string> {
  const identity = { sources: request.files, target: describeTarget(request.target) };
  const found =
    request.output.journal ??
    (await findRunJournal(request.output.out, identity)) ??
    (await findSyncJournal(request.output.out, identity.target, identity.sources))?.path;
  return found ?? resolve(request.output.out, `auth-migrate-${identityId(identity)}.journal.ndjson`);
}

/** What checking the users found, and what the credentials need of it. */
interface Found {
  counts: VerifyCounts;
  problems: UserVerification[];
  notOk: number;
  waiting: Record<string, number>;
  /** Emails of the credentials that some source record has. */
  inSource: Set<string>;
  /** Users of the credentials the run leaves out (disabled in the source...), with why: said so, not tried. */
  notMigrated: Map<string, string>;
  credentials: CredentialCheck[];
}

/** Every user of the sources checked in the core as planned, `concurrency` at once. */
async function verifyUsers(
  request: VerifyRequest,
  prepared: PreparedRun,
  conn: Connection,
  check: Omit<Parameters<typeof verifyUser>[2], 'lookup'>,
  emit: (e: VerifyEvent) => void,
): Promise<Found> {
  const found: Found = {
    counts: { total: 0, ok: 0, missing: 0, mismatch: 0, skipped: 0 },
    problems: [],
    notOk: 0,
    waiting: {},
    inSource: new Set(),
    notMigrated: new Map(),
    credentials: [],
  };
  const { counts, waiting } = found;
  const options = { ...check, lookup: createAccountLookup(conn.client) };
  // Credentials whose email no source record has are said so instead of tried (a real core counts refusals).
  const wanted = new Set((request.credentials ?? []).map((c) => c.email.trim().toLowerCase()));
  const inputs = sliceRecords(streamValidatedRecords(request.files, request.read, prepared.report), request.slice);
  await forEachPooled(inputs, request.concurrency, async (input) => {
    const email = input.record.email?.trim().toLowerCase();
    const asked = email !== undefined && wanted.has(email);
    if (asked) found.inSource.add(email);
    const result = await verifyUser(input, conn.client, options);
    if (asked && result.outcome === 'skipped') found.notMigrated.set(email, result.differences.join('; '));
    counts.total += 1;
    counts[result.outcome] += 1;
    if (result.waiting !== undefined) waiting[result.waiting] = (waiting[result.waiting] ?? 0) + 1;
    if (result.outcome !== 'ok' && result.outcome !== 'skipped') {
      found.notOk += 1;
      if (found.problems.length < (request.keep ?? 10_000)) found.problems.push(result);
    }
    emit({ type: 'verify-user', result, counts: { ...counts }, at: Date.now() });
  });
  return found;
}

/** The known passwords tried, one at a time; those of users not in the sources or not migrated are said so. */
async function verifyCredentials(
  credentials: NonNullable<VerifyRequest['credentials']>,
  found: Found,
  conn: Connection,
  emit: (e: VerifyEvent) => void,
): Promise<CredentialCheck[]> {
  const checks: CredentialCheck[] = [];
  for (const c of credentials) {
    const key = c.email.trim().toLowerCase();
    const why = found.notMigrated.get(key);
    let check: CredentialCheck = found.inSource.has(key)
      ? await checkCredential(conn.client, c.email, c.password)
      : { email: c.email, ok: false, status: 'NOT_IN_SOURCE' };
    // Refused for a user the run never migrated: that is why, not "wrong credentials".
    if (!check.ok && why !== undefined) check = { email: c.email, ok: false, status: 'NOT_MIGRATED', reason: why };
    checks.push(check);
    emit({ type: 'credential', line: c.line, check });
  }
  return checks;
}

/** The last event and the outcome: expected skips and users the run left out do not fail a verify. */
function verifyEnd(
  found: Found,
  durationMs: number,
  totp: { totpCodesChecked: boolean; totpChecksFile: string | undefined },
  emit: (e: VerifyEvent) => void,
): VerifyOutcome {
  const { counts, credentials, waiting } = found;
  // A user the run leaves out is expected not to sign in: counted apart, not a failure (as its skip is not).
  const notMigratedCount = credentials.filter((c) => c.status === 'NOT_MIGRATED').length;
  const refused = credentials.filter((c) => !c.ok).length - notMigratedCount;
  const signedIn = { checked: credentials.length, ok: credentials.length - refused - notMigratedCount, notMigrated: notMigratedCount };
  const anyWaiting = Object.keys(waiting).length > 0;
  const { totpCodesChecked, totpChecksFile } = totp;
  emit({ type: 'verify-finished', counts, durationMs, totpCodesChecked, credentials: signedIn, ...(anyWaiting ? { waiting } : {}) });
  return {
    counts,
    problems: found.problems,
    notOk: found.notOk,
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
