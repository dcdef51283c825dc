// Runner semantics against the real sandbox core over HTTP: bounded concurrency, journal resume, reruns, stop,
// pause, fatal errors. The real client is only wrapped to count calls in flight and to inject server errors.
import { decodeJournalLine } from '../../src/engine/journal/lines.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../src/core-client/client.js';
import type { CoreClient } from '../../src/core-client/types.js';
import type { RunEvent } from '../../src/engine/events.js';
import { openJournal, type RunIdentity } from '../../src/engine/journal/journal.js';
import { startMigration, type ValidatedRecord } from '../../src/engine/runner.js';
import { WRITE_PATHS } from '../../src/engine/strategies/index.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE, allUsers, waitFor } from '../support/cli.js';
import { instrument, type InstrumentedCore } from '../support/instrumented-core.js';
import { JOURNAL_SAMPLE } from '../../src/engine/journal/check.js';

const HASH = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

function users(n: number): CanonicalUser[] {
  return Array.from({ length: n }, (_, i) => {
    const u: CanonicalUser = { id: `u${i}`, email: `u${i}@x.io`, password: { hash: HASH } };
    if (i % 3 === 0) u.externalUserId = `ext-${i}`;
    if (i % 4 === 0) u.totp = [{ secret: SECRET }];
    if (i % 5 === 0) u.thirdParty = [{ providerId: 'google', userId: `g${i}` }];
    if (i % 7 === 0) u.otpFactors = { email: `u${i}@x.io`, phoneNumber: `+1415555${String(1000 + i).padStart(4, '0')}` };
    return u;
  });
}

/** Recipe users a list makes in the core: one per first factor plus one passwordless user per OTP contact. */
const recipeUserCount = (list: CanonicalUser[]) =>
  list.length + list.filter((u) => u.thirdParty).length + list.filter((u) => u.otpFactors).length;

async function* inputs(list: CanonicalUser[], invalid: Set<string> = new Set()): AsyncIterable<ValidatedRecord> {
  for (const [i, record] of list.entries()) {
    const valid = !invalid.has(record.id);
    yield {
      record,
      origin: { file: 'users.ndjson', line: i + 1 },
      valid,
      problems: valid
        ? []
        : [
            {
              severity: 'error',
              rule: 'email.syntax',
              origin: { file: 'users.ndjson', line: i + 1 },
              sourceId: record.id,
              message: 'bad email',
            },
          ],
    };
  }
}

let dir: string;
let sandbox: RunningSandbox | undefined;
/** The runner's client (real, instrumented). */
let core: InstrumentedCore;
/** A plain client for looking at the store. */
let plain: CoreClient;

async function startCore(opts: { licensed: boolean }): Promise<void> {
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: opts.licensed ? LICENSE : undefined });
  const noRetry = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };
  core = instrument(createCoreClient({ url: sandbox.url, retry: noRetry }));
  plain = createCoreClient({ url: sandbox.url, retry: noRetry });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-runner-'));
});
afterEach(async () => {
  core?.client.close();
  plain?.close();
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const identity = (): RunIdentity => ({ sources: ['/x/users.ndjson'], target: sandbox!.url });

async function run(
  list: CanonicalUser[],
  journalPath: string,
  opts: { concurrency?: number; invalid?: Set<string>; onEvent?: (e: RunEvent, r: ReturnType<typeof startMigration>) => void } = {},
) {
  const journal = await openJournal(journalPath, identity(), { intervalMs: 5 });
  const events: RunEvent[] = [];
  const handle: { run?: ReturnType<typeof startMigration> } = {};
  try {
    handle.run = startMigration({
      inputs: inputs(list, opts.invalid),
      total: list.length,
      strategy: WRITE_PATHS.steps.strategy(),
      core: core.client,
      journal,
      concurrency: opts.concurrency ?? 4,
      onEvent: (e) => {
        events.push(e);
        opts.onEvent?.(e, handle.run!);
      },
    });
    const summary = await handle.run.done;
    return { summary, events };
  } finally {
    await journal.close();
  }
}

/** Everything the store holds for the public tenant, in a comparable form (users, login methods, devices). */
async function storeState(withDevices = true): Promise<string[]> {
  const out: string[] = [];
  for (const u of await allUsers(plain)) {
    const methods = u.loginMethods
      .map((m) => [m.recipeId, m.recipeUserId, m.email, m.phoneNumber, m.thirdParty?.id, m.thirdParty?.userId].join('|'))
      .sort();
    const devices = withDevices ? (await plain.listTotpDevices(u.id)).devices.map((d) => `${d.name}/${d.period}/${d.skew}`).sort() : [];
    out.push(JSON.stringify({ id: u.id, primary: u.isPrimaryUser, methods, devices }));
  }
  return out.sort();
}

const journalEntries = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .flatMap((l) => decodeJournalLine(l) as unknown as Array<Record<string, unknown>>);

/** Every string anywhere in a parsed JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('runner (real sandbox core)', () => {
  it('imports every user with bounded concurrency, journals ids but no secrets, and a rerun changes nothing', async () => {
    await startCore({ licensed: true });
    const list = users(40);
    const jp = join(dir, 'a.journal.ndjson');
    // The first user's first write is held until another user's request has begun (or 60 s pass: then the users did
    // not run side by side and the check below fails): side by side by behaviour, not by how fast the machine is.
    let held = false;
    core.hold = async (method) => {
      if (held || method !== 'importPasswordHash') return;
      held = true;
      for (const until = Date.now() + 60_000; core.maxUserInFlight < 2 && Date.now() < until;) await sleep(5);
    };
    const first = await run(list, jp, { concurrency: 4, invalid: new Set(['u39']) });
    core.hold = undefined;
    expect(first.summary.totals).toMatchObject({ total: 40, imported: 39, alreadyPresent: 0, failed: 0, skipped: 1 });
    // The users' own requests: the engine's reads of the core in the background (steps-knowledge.ts) are not users.
    expect(core.maxUserInFlight).toBeLessThanOrEqual(4);
    expect(core.maxUserInFlight).toBeGreaterThan(1); // the users really ran side by side
    expect(core.inFlight).toBe(0);
    expect(first.events[0]).toMatchObject({ type: 'run-started', total: 40 });
    expect(first.events.at(-1)).toMatchObject({ type: 'finished' });

    // The store holds exactly what was imported: one user per record (linked), no more recipe users.
    const stored = await storeState();
    const valid = list.filter((u) => u.id !== 'u39');
    expect(stored).toHaveLength(39);
    expect(stored.reduce((n, s) => n + (JSON.parse(s) as { methods: string[] }).methods.length, 0)).toBe(recipeUserCount(valid));
    expect(stored.filter((s) => (JSON.parse(s) as { devices: string[] }).devices.length === 1)).toHaveLength(
      valid.filter((u) => u.totp).length,
    );

    // The journal holds ids (the very ones the core made), never a hash, a secret or a one-time code.
    const text = readFileSync(jp, 'utf8');
    expect(text).not.toContain(HASH);
    expect(text).not.toContain(SECRET);
    expect(core.codes.length).toBe(valid.filter((u) => u.otpFactors).length);
    const values = new Set(strings(journalEntries(jp)));
    for (const code of core.codes) expect(values.has(code)).toBe(false);
    const storeIds = new Set((await allUsers(plain)).flatMap((u) => [u.id, ...u.loginMethods.map((m) => m.recipeUserId)]));
    const passwordSteps = journalEntries(jp).filter((e) => e.type === 'step' && e.step === 'password');
    expect(passwordSteps).toHaveLength(39);
    for (const e of passwordSteps) {
      const ids = e.ids as Record<string, string>;
      expect(storeIds.has(ids.recipeUserId!) || storeIds.has(`ext-${String(e.user).slice(1)}`)).toBe(true);
    }
    // Write-ahead: each user's login was named (email, fingerprint) in an intent line before its step's line.
    const entries = journalEntries(jp);
    for (const e of passwordSteps) {
      const intent = entries.findIndex((i) => i.type === 'intent' && i.user === e.user && i.step === 'password');
      expect(intent, String(e.user)).toBeGreaterThanOrEqual(0);
      expect((entries[intent]!.who as Record<string, string>).email).toMatch(/@/);
      const line = entries.findIndex((x) => x.type === 'step' && x.user === e.user && x.step === 'password');
      expect(line).toBeGreaterThan(intent);
    }
    expect(
      journalEntries(jp)
        .filter((e) => e.type === 'step' && e.step === 'map')
        .map((e) => (e.ids as Record<string, string>).externalUserId)
        .sort(),
    ).toEqual(
      valid
        .filter((u) => u.externalUserId)
        .map((u) => u.externalUserId)
        .sort(),
    );

    // Same journal: no write is sent; only the journal check counts the users and looks a few journalled users up.
    const callsBefore = core.calls.length;
    const again = await run(list, jp, { invalid: new Set(['u39']) });
    expect(again.summary.totals).toMatchObject({ imported: 0, alreadyPresent: 39, resumed: 39, skipped: 1 });
    expect(core.calls.slice(callsBefore)).toEqual(['raw', ...Array(JOURNAL_SAMPLE).fill('getUserById')]);

    // Fresh journal: every step meets the core's "already there" answers, and the store is unchanged.
    const fresh = await run(list, join(dir, 'b.journal.ndjson'), { invalid: new Set(['u39']) });
    expect(fresh.summary.totals).toMatchObject({ imported: 0, alreadyPresent: 39, resumed: 0, failed: 0 });
    expect(core.calls.length).toBeGreaterThan(callsBefore);
    expect(await storeState()).toEqual(stored);
  });

  it('resumes from a journal cut at any point without duplicating anything', async () => {
    await startCore({ licensed: true });
    const list = users(30);
    const jp = join(dir, 'cut.journal.ndjson');
    await run(list, jp);
    const lines = readFileSync(jp, 'utf8').trim().split('\n');
    const stored = await storeState();
    expect(stored).toHaveLength(30);
    for (const cut of [1, 7, Math.floor(lines.length / 2), lines.length - 3]) {
      // The core has everything (steps performed but never journalled); the journal is truncated mid-line.
      const cp = join(dir, `cut-${cut}.journal.ndjson`);
      writeFileSync(cp, lines.slice(0, cut).join('\n') + '\n' + lines[cut]!.slice(0, 10));
      const r = await run(list, cp);
      expect(r.summary.totals.failed).toBe(0);
      expect(r.summary.totals.imported + r.summary.totals.alreadyPresent).toBe(30);
      expect(await storeState()).toEqual(stored);
    }
  });

  it('stop() takes no new users, ends in-flight steps, and the next run completes the rest', async () => {
    await startCore({ licensed: true });
    // Every user has several steps, so one that ran on to its end after stop() would show.
    const list = users(60).map((u) => ({ ...u, thirdParty: [{ providerId: 'google', userId: `g-${u.id}` }], totp: [{ secret: SECRET }] }));
    const jp = join(dir, 's.journal.ndjson');
    const concurrency = 3;
    let callsAtStop = -1;
    const doneAtStop = new Set<string>();
    const first = await run(list, jp, {
      concurrency,
      onEvent: (e, r) => {
        if (e.type === 'user-done' && callsAtStop < 0) doneAtStop.add(e.result.id);
        if (e.type === 'user-done' && e.done === 10) {
          r.stop();
          callsAtStop = core.calls.length;
        }
      },
    });
    expect(first.summary.stopped).toBe('requested');
    expect(first.events.some((e) => e.type === 'stopping')).toBe(true);
    // Every call that was in flight has ended by the time the run is done.
    expect(core.inFlight).toBe(0);
    // The other workers each end the one step they were in (at most 2 calls a step), then start no other. Beside
    // them the stopping run lists the core once more for the mappings waiting for it (mapping-readback.ts).
    expect(callsAtStop).toBeGreaterThan(0);
    expect(core.calls.slice(callsAtStop).filter((c) => c !== 'listUsers').length).toBeLessThanOrEqual((concurrency - 1) * 2);
    const done1 = first.summary.totals.imported;
    expect(done1).toBeGreaterThanOrEqual(10);
    // When the 10th user finished, at most the other workers' users were in flight; no user started after.
    const touched = new Set(
      journalEntries(jp)
        .filter((e) => e.type === 'step')
        .map((e) => e.user as string),
    );
    // The users touched but not done then: the other workers' (at most concurrency - 1), and mapped users whose steps
    // were done but the read-back of their mapping by the run's next listing, which holds no worker.
    const mapped = new Set(list.filter((u) => u.externalUserId !== undefined).map((u) => u.id));
    const inWorkers = [...touched].filter((u) => !doneAtStop.has(u) && !mapped.has(u));
    expect(inWorkers.length).toBeLessThanOrEqual(concurrency - 1);
    expect(doneAtStop.size).toBe(10);
    expect(done1).toBeLessThanOrEqual(touched.size);
    expect((await allUsers(plain)).length).toBeLessThanOrEqual(touched.size * 3);

    const second = await run(list, jp, { concurrency });
    expect(second.summary.stopped).toBeUndefined();
    expect(second.summary.totals.imported + second.summary.totals.alreadyPresent).toBe(60);
    expect(second.summary.totals.resumed).toBe(done1);
    const stored = await allUsers(plain);
    expect(stored).toHaveLength(60);
    expect(stored.reduce((n, u) => n + u.loginMethods.length, 0)).toBe(recipeUserCount(list));
  });

  it('pause() holds new steps until resume()', async () => {
    await startCore({ licensed: true });
    const list = users(20);
    let callsAtPause = -1;
    let callsAtIdle = -1;
    let callsAtResume = -1;
    let whilePaused: Promise<void> | undefined;
    const jp = join(dir, 'p.journal.ndjson');
    const r = await run(list, jp, {
      onEvent: (e, handle) => {
        if (e.type === 'user-done' && e.done === 5 && callsAtPause < 0) {
          handle.pause();
          callsAtPause = core.calls.length;
          whilePaused = (async () => {
            try {
              // The steps in flight end; then nothing starts, while the core keeps answering other requests.
              await waitFor(() => core.inFlight === 0, 'the in-flight steps to end', 10_000);
              callsAtIdle = core.calls.length;
              const a = await storeState(false);
              const b = await storeState(false);
              expect(b).toEqual(a);
              expect(handle.paused).toBe(true);
              callsAtResume = core.calls.length;
            } finally {
              handle.resume(); // even when a check failed, so the run ends and the failure is reported
            }
          })();
        }
      },
    });
    await whilePaused;
    expect(r.summary.totals.imported).toBe(20);
    expect(r.events.map((e) => e.type)).toEqual(expect.arrayContaining(['paused', 'resumed']));
    // While paused, only the steps already in flight ended (4 users, at most 2 calls per step); none started.
    expect(callsAtResume).toBe(callsAtIdle);
    expect(callsAtResume - callsAtPause).toBeLessThanOrEqual(8);
    expect(core.calls.length).toBeGreaterThan(callsAtResume);
    const pausedAt = r.events.findIndex((e) => e.type === 'paused');
    const resumedAt = r.events.findIndex((e) => e.type === 'resumed');
    expect(r.events.slice(pausedAt, resumedAt).filter((e) => e.type === 'user-done').length).toBeLessThanOrEqual(3);
  });

  it('a 402 stops the run as fatal; the journal holds exactly the steps done', async () => {
    await startCore({ licensed: false }); // no licence: account linking (and MFA) answer 402
    const list = users(12);
    const jp = join(dir, 'f.journal.ndjson');
    const r = await run(list, jp, { concurrency: 1 });
    expect(r.summary.stopped).toBe('fatal');
    expect(r.summary.fatal?.message).toMatch(/HTTP 402/);
    expect(r.summary.fatal?.message).toMatch(/account linking/);
    // u0 has a social login and OTP factors: its first steps are journalled; linking them is refused.
    const entries = journalEntries(jp).filter((e) => e.type === 'step' || e.type === 'user');
    // (The mapping's line comes once the run's listing shows it: mapping-readback.ts; the stopping run lists once more.)
    expect(
      entries
        .filter((e) => e.user === 'u0')
        .map((e) => e.step as string)
        .sort(),
    ).toEqual(['map', 'otp', 'otp-contact', 'password', 'thirdparty:google:g0']);
    expect(entries.some((e) => e.user === 'u1')).toBe(false);
    expect(r.summary.totals.imported).toBe(0);
    // The store agrees: u0's three recipe users, unlinked, the password user under its external id.
    const stored = await allUsers(plain);
    expect(stored.map((u) => u.loginMethods[0]!.recipeId).sort()).toEqual(['emailpassword', 'passwordless', 'thirdparty']);
    expect(stored.every((u) => !u.isPrimaryUser && u.loginMethods.length === 1)).toBe(true);
    expect(stored.find((u) => u.loginMethods[0]!.recipeId === 'emailpassword')?.id).toBe('ext-0');
    expect(stored.find((u) => u.loginMethods[0]!.recipeId === 'passwordless')?.phoneNumbers).toEqual(['+14155551000']);

    expect((await plain.setLicense(LICENSE)).status).toBe('OK');
    const callsBefore = core.calls.length;
    const again = await run(list, jp, { concurrency: 1 });
    expect(again.summary.totals).toMatchObject({ imported: 12, failed: 0 });
    // u0's journalled steps are not sent again: its first call is the one that was refused.
    expect(core.calls[callsBefore]).toBe('createPrimaryUser');
    const after = await allUsers(plain);
    expect(after).toHaveLength(12);
    expect(after.reduce((n, u) => n + u.loginMethods.length, 0)).toBe(recipeUserCount(list));
  });

  it('a server error for one user fails that user; server errors for many users in a row stop the run', async () => {
    await startCore({ licensed: true });
    const list = users(30);
    const social = list.filter((u) => u.thirdParty).map((u) => u.id);
    core.serverError = (method) => method === 'thirdPartySignInUp'; // only users with a social login meet it
    const some = await run(list, join(dir, 'se1.journal.ndjson'), { concurrency: 2 });
    expect(some.summary.stopped).toBeUndefined();
    expect(some.summary.totals.failed).toBe(social.length);
    const failed = some.events.flatMap((e) => (e.type === 'user-done' && e.result.outcome === 'failed' ? [e.result] : []));
    expect(failed.map((f) => f.id).sort()).toEqual([...social].sort());
    expect(failed.every((f) => f.status === 'HTTP 500')).toBe(true);
    expect(some.summary.totals.imported).toBe(30 - social.length);

    core.serverError = (method, args) =>
      method === 'thirdPartySignInUp' || (method === 'importPasswordHash' && String((args[0] as { email: string }).email).startsWith('b')); // now every user
    // Their own external ids: a user the core holds under one of the first list's would be that same user.
    const many = users(40).map((u) => ({
      ...u,
      id: `b${u.id}`,
      email: `b${u.email}`,
      ...(u.externalUserId ? { externalUserId: `b${u.externalUserId}` } : {}),
    }));
    const all = await run(many, join(dir, 'se2.journal.ndjson'), { concurrency: 2 });
    expect(all.summary.stopped).toBe('fatal');
    expect(all.summary.fatal?.message).toMatch(/the core answered HTTP 500 to 10 users in a row/);
    expect(all.summary.totals.failed).toBeGreaterThanOrEqual(10);
    expect(all.summary.totals.failed).toBeLessThan(15);
    expect((await allUsers(plain)).some((u) => u.emails.some((e) => e.startsWith('b')))).toBe(false);
  });
});
