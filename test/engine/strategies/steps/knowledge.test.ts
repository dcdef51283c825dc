// `--via steps` without a look-up per user where bulk knowledge replaces it (issues 24, 35): a core small beside the
// run (GET /users/count) is read in bulk (GET /users pages) and kept fresh from the newest end, so a step that
// creates a user skips its GET /users/by-accountinfo when the login method is known absent; a large core is looked
// up user by user. The decision is by sizes, never by how fast the core lists: a slow listing is waited for, not
// replaced by look-ups. A user that is there is still looked up (and never overwritten); one created in the core
// after the listing is seen once the knowledge is older than its greatest age. Clocks are injected: no test here
// depends on how loaded the machine is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCoreClient } from '../../../../src/core-client/client.js';
import { CoreHttpError } from '../../../../src/core-client/errors.js';
import type { RunEvent } from '../../../../src/engine/events.js';
import { FreshKnowledge } from '../../../../src/engine/strategies/steps/knowledge.js';
import { knownAbsentForSteps } from '../../../../src/engine/strategies/steps/knowledge-choice.js';
import { commitMargin, refreshPage } from '../../../../src/engine/strategies/steps/refresh-span.js';
import { openJournal } from '../../../../src/engine/journal/journal.js';
import { startMigration, type ValidatedRecord } from '../../../../src/engine/runner.js';
import { WRITE_PATHS } from '../../../../src/engine/strategies/index.js';
import type { Step } from '../../../../src/engine/plan/steps.js';
import type { CanonicalUser } from '../../../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { LICENSE } from '../../../support/cli.js';
import { instrument } from '../../../support/instrumented-core.js';
import { passwordStep as password } from '../../../support/users.js';
import { BCRYPT as HASH } from '../../../support/vectors.js';

/** The password of the user that was there before the run (the export has another hash for it). */
const OTHER = bcrypt.hashSync('there-before', 4);
const noRetry = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };

let dir: string;
let sandbox: RunningSandbox;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-knowledge-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
});
afterEach(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function* inputs(list: CanonicalUser[]): AsyncIterable<ValidatedRecord> {
  for (const [i, record] of list.entries()) yield { record, origin: { file: 'users.ndjson', line: i + 1 }, valid: true, problems: [] };
}

describe('bulk knowledge on the steps path', () => {
  it('no look-up for users known absent; a user already there is looked up and left unchanged; the run says how it knows', async () => {
    const plain = createCoreClient({ url: sandbox.url, retry: noRetry });
    await plain.importPasswordHash({ email: 'there@example.test', passwordHash: OTHER });
    const core = instrument(createCoreClient({ url: sandbox.url, retry: noRetry }));
    const list: CanonicalUser[] = [
      ...Array.from({ length: 30 }, (_, i) => ({ id: `k${i}`, email: `k${i}@example.test`, password: { hash: HASH } })),
      { id: 'there', email: 'there@example.test', password: { hash: HASH } },
      { id: 'tp', email: 'tp@example.test', thirdParty: [{ providerId: 'google', userId: 'g-tp' }] },
    ];
    const journal = await openJournal(join(dir, 'j.ndjson'), { sources: ['/x'], target: sandbox.url }, { intervalMs: 5 });
    const events: RunEvent[] = [];
    const run = startMigration({
      inputs: inputs(list),
      total: list.length,
      strategy: WRITE_PATHS.steps.strategy(),
      core: core.client,
      journal,
      concurrency: 4,
      onEvent: (e) => events.push(e),
    });
    const summary = await run.done;
    await journal.close();
    expect(summary.totals).toMatchObject({ imported: 31, alreadyPresent: 1, failed: 0 });
    // One look-up: the user that was there, however long the listing took. The core was read in bulk instead.
    expect(core.calls.filter((c) => c === 'listUsersByAccountInfo')).toHaveLength(1);
    expect(core.calls.filter((c) => c === 'listUsers').length).toBeGreaterThanOrEqual(1);
    expect(events.filter((e) => e.type === 'core-knowledge')).toEqual([
      expect.objectContaining({ listed: true, coreUsers: 1, runUsers: 32, detail: expect.stringContaining('read once in bulk') }),
    ]);
    // Its password hash is the one it had: signing in with the export's hash's password would not replace it.
    const there = await plain.listUsersByAccountInfo({ email: 'there@example.test' });
    expect(there.users).toHaveLength(1);
    const signIn = await plain.raw({
      method: 'POST',
      path: '/recipe/signin',
      scope: 'tenant',
      body: { email: 'there@example.test', password: 'x' },
    });
    expect(JSON.parse(signIn.text)).toMatchObject({ status: 'WRONG_CREDENTIALS_ERROR' });
    plain.close();
    core.client.close();
  });

  it('the core against the run decides: listed when small, looked up when more than ten times the run, and said so', async () => {
    const core = instrument(createCoreClient({ url: sandbox.url, retry: noRetry }));
    await Promise.all(
      Array.from({ length: 30 }, (_, k) => core.client.importPasswordHash({ email: `s${k}@example.test`, passwordHash: HASH })),
    );
    core.calls.length = 0;
    const said: RunEvent[] = [];
    // 30 users in the core, 2 to migrate: more than ten times as many. No listing; every user is looked up.
    const large = knownAbsentForSteps(core.client, 2, (e) => said.push(e));
    expect(await large(password('new@example.test'))).toBe(false);
    expect(await large(password('new2@example.test'))).toBe(false);
    expect(core.calls).toEqual(['raw']); // GET /users/count, once
    // 3 to migrate: 30 is ten times as many, not more. Read in bulk: a new user is known absent, one there is not.
    const small = knownAbsentForSteps(core.client, 3, (e) => said.push(e));
    expect(await small(password('new@example.test'))).toBe(true);
    expect(await small(password('s1@example.test'))).toBe(false);
    expect(core.calls.filter((c) => c === 'listUsers')).toHaveLength(1);
    expect(said).toMatchObject([
      { type: 'core-knowledge', listed: false, coreUsers: 30, runUsers: 2 },
      { type: 'core-knowledge', listed: true, coreUsers: 30, runUsers: 3 },
    ]);
    expect((said[0] as { detail: string }).detail).toContain('each user is looked up');
    core.client.close();
  });

  it('a user created after the listing is seen once the knowledge is older than a second: a refresh from 800 ms, waited for past 1 s', async () => {
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    let now = 1_000_000;
    const known = new FreshKnowledge(core, { now: () => now, paceAsks: 1 });
    expect(await known.absent(password('late@example.test'))).toBe(true);
    expect(known.reads).toBe(1);
    await core.importPasswordHash({ email: 'late@example.test', passwordHash: OTHER });
    now += 500; // young: not read again
    expect(await known.absent(password('late@example.test'))).toBe(true);
    expect(known.reads).toBe(1);
    now += 300; // 800 ms: a refresh starts, not waited for; what is known answers meanwhile (still under a second old)
    expect(await known.absent(password('other@example.test'))).toBe(true);
    expect(known.reads).toBe(2);
    await known.refreshed();
    expect(await known.absent(password('late@example.test'))).toBe(false);
    expect(await known.absent(password('LATE@example.test'))).toBe(false); // emails as the core keeps them
    expect(await known.absent(password('other@example.test'))).toBe(true);
    // Past a second with no refresh under way: the step waits for one that begins now (no refreshed() here).
    await core.importPasswordHash({ email: 'later@example.test', passwordHash: OTHER });
    now += 1_500;
    expect(await known.absent(password('later@example.test'))).toBe(false);
    expect(known.reads).toBe(3);
    const tp: Step = {
      kind: 'thirdparty-signinup',
      key: 'thirdparty:google:g1',
      thirdPartyId: 'google',
      thirdPartyUserId: 'g1',
      email: 'a@b.c',
      isVerified: true,
    };
    expect(await known.absent(tp)).toBe(true);
    core.close();
  });

  it('a run that slows down reads the core once for 128 questions (about 64 users), not once a second, and at least every 10 s', async () => {
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    let now = 4_000_000;
    const known = new FreshKnowledge(core, { now: () => now });
    expect(await known.absent(password('late@example.test'))).toBe(true);
    await core.importPasswordHash({ email: 'late@example.test', passwordHash: OTHER });
    now += 1_500; // older than a second, but the run asked little since: what is known answers, no read
    for (let i = 0; i < 100; i++) expect(await known.absent(password(`q${i}@example.test`))).toBe(true);
    expect(await known.absent(password('late@example.test'))).toBe(true);
    expect(known.reads).toBe(1);
    // Before 128 questions since the read began (from 0.8 of them), a refresh starts; what is known answers meanwhile.
    let more = 0;
    while (known.reads === 1 && more < 200) expect(await known.absent(password(`r${more++}@example.test`))).toBe(true);
    expect(102 + more).toBeLessThan(128);
    await known.refreshed();
    expect(await known.absent(password('late@example.test'))).toBe(false);
    expect(known.reads).toBe(2);
    // Ten seconds later, with one question since: read again all the same.
    await core.importPasswordHash({ email: 'later@example.test', passwordHash: OTHER });
    now += 10_000;
    expect(await known.absent(password('later@example.test'))).toBe(false);
    expect(known.reads).toBe(3);
    core.close();
  });

  it('a core that lists slowly is still listed, and a late refresh is waited for rather than replaced by look-ups', async () => {
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    await Promise.all(Array.from({ length: 150 }, (_, k) => core.importPasswordHash({ email: `u${k}@example.test`, passwordHash: HASH })));
    let now = 3_000_000;
    let lists = 0;
    let release: (() => void) | undefined;
    // Each page is answered only when the test lets it go: "slow" is whatever the machine makes it.
    const slowly = Object.assign(Object.create(core) as typeof core, {
      listUsers: async (...args: Parameters<typeof core.listUsers>) => {
        lists += 1;
        await new Promise<void>((r) => (release = r));
        return core.listUsers(...args);
      },
    });
    const known = new FreshKnowledge(slowly, { now: () => now, paceAsks: 1 });
    const first = known.absent(password('new@example.test'));
    await vi.waitFor(() => expect(lists).toBe(1));
    release!();
    expect(await first).toBe(true); // listed, however long the page took
    expect(await known.absent(password('u7@example.test'))).toBe(false);
    now += 1_200; // stale: the next answer waits for a refresh
    let answered = false;
    const waiting = known.absent(password('new@example.test')).then((v) => ((answered = true), v));
    await vi.waitFor(() => expect(lists).toBe(2));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false); // not looked up meanwhile: it waits
    release!();
    expect(await waiting).toBe(true);
    core.close();
  });

  it('a refresh reads from the newest known join time (one reader for a page or less), or newest first where made tokens are refused', async () => {
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    await core.importPasswordHash({ email: 'early@example.test', passwordHash: HASH });
    for (const refuses of [false, true]) {
      const made: string[] = [];
      const listing = Object.assign(Object.create(core) as typeof core, {
        listUsers: async (...args: Parameters<typeof core.listUsers>) => {
          const token = args[0]?.paginationToken;
          const text = token ? Buffer.from(token, 'base64').toString() : '';
          if (text.startsWith('ffffffff-')) {
            made.push(text);
            if (refuses) throw new CoreHttpError(400, 'invalid pagination token', 'GET', '/users');
          }
          return core.listUsers(...args);
        },
      });
      let now = 2_000_000;
      const known = new FreshKnowledge(listing, { now: () => now, paceAsks: 1 });
      const email = `late-${refuses}@example.test`;
      expect(await known.absent(password(email))).toBe(true);
      await core.importPasswordHash({ email, passwordHash: OTHER });
      now += 1_100;
      expect(await known.absent(password(email))).toBe(false); // waited for the refresh
      expect(await known.absent(password('x@example.test'))).toBe(true);
      // One reader from a made token; a core that refused it is read newest first from then on.
      expect(made).toHaveLength(1);
      now += 1_100;
      expect(await known.absent(password('x@example.test'))).toBe(true);
      expect(made).toHaveLength(refuses ? 1 : 2);
      expect(known.reads).toBe(3);
    }
    core.close();
  });

  it('a refresh reads again from twice the longest recent answer before the newest join time, 0.5 to 2 s (commitMargin)', async () => {
    // The reference stamps a join time before the user's transaction and commits before it answers (knowledge.ts).
    expect(commitMargin(undefined)).toBe(2_000); // nothing answered lately: the widest margin
    expect(commitMargin(40)).toBe(500);
    expect(commitMargin(400)).toBe(800);
    expect(commitMargin(30_000)).toBe(2_000); // a timeout: the widest
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    await core.importPasswordHash({ email: 'first@example.test', passwordHash: HASH });
    const from: number[] = [];
    const listing = Object.assign(Object.create(core) as typeof core, {
      listUsers: async (...args: Parameters<typeof core.listUsers>) => {
        const token = args[0]?.paginationToken;
        const text = token ? Buffer.from(token, 'base64').toString() : '';
        if (text.startsWith('ffffffff-')) from.push(Number(text.split(';')[1]));
        return core.listUsers(...args);
      },
    });
    let now = 6_000_000;
    let margin = 700;
    const known = new FreshKnowledge(listing, { now: () => now, paceAsks: 1, margin: () => margin });
    expect(await known.absent(password('a@example.test'))).toBe(true);
    const newest = Math.max(...(await core.listUsers({ limit: 10 })).users.map((u) => u.timeJoined));
    now += 1_100;
    expect(await known.absent(password('a@example.test'))).toBe(true);
    margin = 1_900;
    now += 1_100;
    expect(await known.absent(password('a@example.test'))).toBe(true);
    expect(from).toEqual([newest - 700, newest - 1_900]);
    core.close();
  });

  it("a refresh's readers each ask for their share of the last refresh and a quarter more, not a whole page each", async () => {
    expect(refreshPage(420, 1)).toBe(500); // one reader reads to the newest: whole pages
    expect(refreshPage(600, 2)).toBe(391);
    expect(refreshPage(1_400, 3)).toBe(500);
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    let now = 7_000_000;
    const limits: number[] = [];
    const listing = Object.assign(Object.create(core) as typeof core, {
      listUsers: async (...args: Parameters<typeof core.listUsers>) => {
        const token = args[0]?.paginationToken;
        if (token && Buffer.from(token, 'base64').toString().startsWith('ffffffff-')) limits.push(args[0]!.limit ?? 0);
        return core.listUsers(...args);
      },
    });
    const known = new FreshKnowledge(listing, { now: () => now, paceAsks: 1, margin: () => 500 });
    expect(await known.absent(password('a@example.test'))).toBe(true); // the first read: the core is empty
    // 600 users join within the margin of the newest: the next refresh reads them all, the one after in two readers.
    for (let k = 0; k < 600; k += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => core.importPasswordHash({ email: `s${k + i}@example.test`, passwordHash: HASH })),
      );
    }
    now += 1_100;
    expect(await known.absent(password('s599@example.test'))).toBe(false);
    expect(limits).toEqual([500]);
    now += 1_100;
    expect(await known.absent(password('s0@example.test'))).toBe(false);
    // Two readers (a second page for one whose slice holds more than its share), every page of 391 users.
    expect(limits.length).toBeGreaterThanOrEqual(3);
    expect(new Set(limits.slice(1))).toEqual(new Set([391]));
    core.close();
  });
});
