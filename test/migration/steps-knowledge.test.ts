// `--via steps` without a look-up per user where bulk knowledge replaces it (issue 24): the engine learns the
// core's users in bulk (GET /users pages) and keeps that fresh from the newest end, so a step that creates a user
// skips its GET /users/by-accountinfo when the login method is known absent. A user that is there is still looked
// up (and never overwritten); one created in the core after the listing is seen once the knowledge is refreshed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../src/core-client/client.js';
import { CoreHttpError } from '../../src/core-client/errors.js';
import { FreshKnowledge, SLOW_MS_PER_USER } from '../../src/migration/bulk-knowledge.js';
import { openJournal } from '../../src/migration/journal.js';
import { startMigration, type ValidatedRecord } from '../../src/migration/runner.js';
import type { Step } from '../../src/migration/steps.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE } from './support/cli.js';
import { instrument } from './support/instrumented-core.js';

const HASH = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
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

const password = (email: string): Step => ({
  kind: 'import-password',
  key: 'password',
  email,
  passwordHash: HASH,
  hashingAlgorithm: 'bcrypt',
});

describe('bulk knowledge on the steps path', () => {
  it('no look-up for users known absent; a user already there is looked up and left unchanged', async () => {
    const plain = createCoreClient({ url: sandbox.url, retry: noRetry });
    await plain.importPasswordHash({ email: 'there@example.test', passwordHash: OTHER });
    const core = instrument(createCoreClient({ url: sandbox.url, retry: noRetry }));
    const list: CanonicalUser[] = [
      ...Array.from({ length: 30 }, (_, i) => ({ id: `k${i}`, email: `k${i}@example.test`, password: { hash: HASH } })),
      { id: 'there', email: 'there@example.test', password: { hash: HASH } },
      { id: 'tp', email: 'tp@example.test', thirdParty: [{ providerId: 'google', userId: 'g-tp' }] },
    ];
    const journal = await openJournal(join(dir, 'j.ndjson'), { sources: ['/x'], target: sandbox.url }, { intervalMs: 5 });
    const run = startMigration({ inputs: inputs(list), total: list.length, core: core.client, journal, concurrency: 4 });
    const summary = await run.done;
    await journal.close();
    expect(summary.totals).toMatchObject({ imported: 31, alreadyPresent: 1, failed: 0 });
    // One look-up: the user that was there. The core was read in bulk instead (one page, plus refreshes).
    expect(core.calls.filter((c) => c === 'listUsersByAccountInfo')).toHaveLength(1);
    expect(core.calls.filter((c) => c === 'listUsers').length).toBeGreaterThanOrEqual(1);
    expect(core.calls.filter((c) => c === 'listUsers').length).toBeLessThan(10);
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

  it('a user created after the listing is seen once the knowledge is refreshed (never older than its age)', async () => {
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    let now = 1_000_000;
    const known = new FreshKnowledge(core, 1_000, () => now);
    expect(await known.absent(password('late@example.test'))).toBe(true);
    await core.importPasswordHash({ email: 'late@example.test', passwordHash: OTHER });
    now += 500; // still fresh: not read again
    expect(await known.absent(password('late@example.test'))).toBe(true);
    now += 600; // older than a second: the newest users are read again, not waited for (looked up meanwhile)
    expect(await known.absent(password('other@example.test'))).toBe(false);
    await known.refreshed();
    expect(await known.absent(password('late@example.test'))).toBe(false);
    expect(await known.absent(password('LATE@example.test'))).toBe(false); // emails as the core keeps them
    expect(await known.absent(password('other@example.test'))).toBe(true);
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

  it('a core that lists at a real cost per user (the reference on PostgreSQL) is not listed: each user is looked up', async () => {
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    for (let i = 0; i < 150; i += 30) {
      await Promise.all(
        Array.from({ length: 30 }, (_, k) => core.importPasswordHash({ email: `u${i + k}@example.test`, passwordHash: HASH })),
      );
    }
    // The sandbox answers a page in a few ms; a core that takes 150 ms for a page of 150 users (1 ms a user) is over
    // SLOW_MS_PER_USER.
    const slowly = (delayMs: number): typeof core =>
      Object.assign(Object.create(core) as typeof core, {
        listUsers: async (...args: Parameters<typeof core.listUsers>) => {
          await new Promise((r) => setTimeout(r, delayMs));
          return core.listUsers(...args);
        },
      });
    expect(150 * SLOW_MS_PER_USER).toBeLessThan(150);
    expect(await new FreshKnowledge(slowly(150)).absent(password('new@example.test'))).toBe(false); // looked up instead
    expect(await new FreshKnowledge(core).absent(password('new@example.test'))).toBe(true);
    core.close();
  });

  it('a refresh reads from the newest known join time in three readers at once, or newest first where made tokens are refused', async () => {
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
      const known = new FreshKnowledge(listing, 1_000, () => now);
      const email = `late-${refuses}@example.test`;
      expect(await known.absent(password(email))).toBe(true);
      await core.importPasswordHash({ email, passwordHash: OTHER });
      now += 1_100;
      expect(await known.absent(password('x@example.test'))).toBe(false); // refreshing: looked up meanwhile
      await known.refreshed();
      expect(await known.absent(password(email))).toBe(false);
      expect(await known.absent(password('x@example.test'))).toBe(true);
      // Three readers from made tokens; a core that refused them is read newest first from then on.
      expect(made).toHaveLength(3);
      now += 1_100;
      expect(await known.absent(password('x@example.test'))).toBe(false);
      await known.refreshed();
      expect(made).toHaveLength(refuses ? 3 : 6);
      expect(await known.absent(password('x@example.test'))).toBe(true);
    }
    core.close();
  });
});
