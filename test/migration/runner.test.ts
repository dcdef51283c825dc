// Runner semantics against an in-memory core: bounded concurrency, journal resume, reruns, stop, fatal errors.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/migration/events.js';
import { openJournal, type RunIdentity } from '../../src/migration/journal.js';
import { startMigration, type MigrationInput } from '../../src/migration/runner.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { createFakeCore, type FakeCore } from './fake-core.js';

const HASH = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const identity: RunIdentity = { sources: ['/x/users.ndjson'], target: 'fake' };

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

async function* inputs(list: CanonicalUser[], invalid: Set<string> = new Set()): AsyncIterable<MigrationInput> {
  for (const [i, record] of list.entries()) {
    const valid = !invalid.has(record.id);
    yield {
      record,
      origin: { file: 'users.ndjson', line: i + 1 },
      valid,
      problems: valid ? [] : [{ severity: 'error', rule: 'email.syntax', origin: { file: 'users.ndjson', line: i + 1 }, sourceId: record.id, message: 'bad email' }],
    };
  }
}

let dir: string;
let core: FakeCore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-runner-'));
  core = createFakeCore();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(list: CanonicalUser[], journalPath: string, opts: { concurrency?: number; invalid?: Set<string>; onEvent?: (e: RunEvent, r: ReturnType<typeof startMigration>) => void } = {}) {
  const journal = await openJournal(journalPath, identity, { intervalMs: 5 });
  const events: RunEvent[] = [];
  const handle: { run?: ReturnType<typeof startMigration> } = {};
  handle.run = startMigration({
    inputs: inputs(list, opts.invalid),
    total: list.length,
    core: core.client,
    journal,
    concurrency: opts.concurrency ?? 4,
    onEvent: (e) => {
      events.push(e);
      opts.onEvent?.(e, handle.run!);
    },
  });
  const summary = await handle.run.done;
  await journal.close();
  return { summary, events };
}

describe('runner', () => {
  it('imports every user with bounded concurrency, journals ids but no secrets, and a rerun changes nothing', async () => {
    const list = users(40);
    const jp = join(dir, 'a.journal.ndjson');
    const first = await run(list, jp, { concurrency: 4, invalid: new Set(['u39']) });
    expect(first.summary.totals).toMatchObject({ total: 40, imported: 39, alreadyPresent: 0, failed: 0, skipped: 1 });
    expect(core.maxInFlight).toBeLessThanOrEqual(4);
    const text = readFileSync(jp, 'utf8');
    expect(text).not.toContain(HASH);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('123456'); // the passwordless code
    const recipeUsers = core.recipeUsers.size;
    expect(first.events[0]).toMatchObject({ type: 'run-started', total: 40 });
    expect(first.events.at(-1)).toMatchObject({ type: 'finished' });

    // Same journal: nothing is sent at all.
    const callsBefore = core.calls.length;
    const again = await run(list, jp, { invalid: new Set(['u39']) });
    expect(again.summary.totals).toMatchObject({ imported: 0, alreadyPresent: 39, resumed: 39, skipped: 1 });
    expect(core.calls.length).toBe(callsBefore);

    // Fresh journal: every step meets the core's "already there" answers.
    const fresh = await run(list, join(dir, 'b.journal.ndjson'), { invalid: new Set(['u39']) });
    expect(fresh.summary.totals).toMatchObject({ imported: 0, alreadyPresent: 39, resumed: 0, failed: 0 });
    expect(core.recipeUsers.size).toBe(recipeUsers);
  });

  it('resumes from a journal cut at any point without duplicating anything', async () => {
    const list = users(30);
    const jp = join(dir, 'cut.journal.ndjson');
    await run(list, jp);
    const lines = readFileSync(jp, 'utf8').trim().split('\n');
    const total = core.recipeUsers.size;
    for (const cut of [1, 7, Math.floor(lines.length / 2), lines.length - 3]) {
      // Replay on a core that has everything (steps performed but never journalled) from a truncated journal.
      const cp = join(dir, `cut-${cut}.journal.ndjson`);
      writeFileSync(cp, lines.slice(0, cut).join('\n') + '\n' + lines[cut]!.slice(0, 10));
      const r = await run(list, cp);
      expect(r.summary.totals.failed).toBe(0);
      expect(r.summary.totals.imported + r.summary.totals.alreadyPresent).toBe(30);
      expect(core.recipeUsers.size).toBe(total);
    }
  });

  it('stop() takes no new users, ends in-flight steps, and the next run completes the rest', async () => {
    const list = users(60);
    core.delayMs = 2;
    const jp = join(dir, 's.journal.ndjson');
    const first = await run(list, jp, {
      concurrency: 3,
      onEvent: (e, r) => {
        if (e.type === 'user-done' && e.done === 10) r.stop();
      },
    });
    expect(first.summary.stopped).toBe('requested');
    const done1 = first.summary.totals.imported;
    expect(done1).toBeGreaterThanOrEqual(10);
    expect(done1).toBeLessThan(60);
    expect(first.events.some((e) => e.type === 'stopping')).toBe(true);
    const second = await run(list, jp, { concurrency: 3 });
    expect(second.summary.stopped).toBeUndefined();
    expect(second.summary.totals.imported + second.summary.totals.alreadyPresent).toBe(60);
    expect(second.summary.totals.resumed).toBe(done1);
    expect(core.recipeUsers.size).toBe(60 + list.filter((u) => u.thirdParty).length + list.filter((u) => u.otpFactors).length);
  });

  it('pause() holds new steps until resume()', async () => {
    const list = users(20);
    core.delayMs = 1;
    let pausedAt = -1;
    let callsAtPause = 0;
    let callsAtResume = 0;
    const jp = join(dir, 'p.journal.ndjson');
    const r = await run(list, jp, {
      onEvent: (e, handle) => {
        if (e.type === 'user-done' && e.done === 5 && pausedAt < 0) {
          pausedAt = e.done;
          handle.pause();
          callsAtPause = core.calls.length;
          setTimeout(() => {
            callsAtResume = core.calls.length;
            handle.resume();
          }, 50);
        }
      },
    });
    expect(r.summary.totals.imported).toBe(20);
    expect(r.events.map((e) => e.type)).toEqual(expect.arrayContaining(['paused', 'resumed']));
    // While paused, only the steps already in flight ended (4 users, at most 2 calls per step); none started.
    expect(callsAtResume - callsAtPause).toBeLessThanOrEqual(8);
    expect(core.calls.length).toBeGreaterThan(callsAtResume);
  });

  it('a 402 stops the run as fatal; the journal holds exactly the steps done', async () => {
    core.licenceMissing.add('importTotpDevice');
    const list = users(12);
    const jp = join(dir, 'f.journal.ndjson');
    const r = await run(list, jp, { concurrency: 1 });
    expect(r.summary.stopped).toBe('fatal');
    expect(r.summary.fatal?.message).toMatch(/HTTP 402/);
    // u0 has a TOTP device: its password step (and map, third-party, ...) are journalled; the device is not.
    const entries = readFileSync(jp, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const u0 = entries.filter((e) => e.user === 'u0');
    expect(u0.map((e) => e.step)).toEqual(['password', 'map', 'thirdparty:google:g0', 'otp', 'otp-contact', 'primary', 'link:thirdparty:google:g0', 'link:otp']);
    expect(entries.some((e) => e.user === 'u1')).toBe(false);
    expect(r.summary.totals.imported).toBe(0);

    core.licenceMissing.clear();
    const again = await run(list, jp, { concurrency: 1 });
    expect(again.summary.totals).toMatchObject({ imported: 12, failed: 0 });
  });

  it('a server error for one user fails that user; server errors for many users in a row stop the run', async () => {
    const list = users(30);
    core.serverError.add('thirdPartySignInUp'); // only users with a social login (every 5th) meet it
    const some = await run(list, join(dir, 'se1.journal.ndjson'), { concurrency: 2 });
    expect(some.summary.stopped).toBeUndefined();
    expect(some.summary.totals.failed).toBe(list.filter((u) => u.thirdParty).length);

    core.serverError.add('importPasswordHash'); // now every user
    const all = await run(users(40).map((u) => ({ ...u, id: `b${u.id}`, email: `b${u.email}` })), join(dir, 'se2.journal.ndjson'), { concurrency: 2 });
    expect(all.summary.stopped).toBe('fatal');
    expect(all.summary.fatal?.message).toMatch(/the core answered HTTP 500 to 10 users in a row/);
    expect(all.summary.totals.failed).toBeLessThan(15);
  });
});
