// The step runner under the reference core's contention failures (issue 20, points 3 and 4), on the real sandbox
// with its fault modes, at concurrency 1 so the seeded faults fall on the same requests every time:
// - a consume that uses up the code and creates no user, again and again: new flows within the restart budget;
// - lookups that fail after the client's retries: asked again like writes;
// - a login created and left unverified (a 500 between the two transactions, or a kill): "already there" checks
//   the whole promise and marks it verified, in the same run and in a rerun.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../../../src/core-client/client.js';
import type { CoreClient, CoreUser } from '../../../../src/core-client/types.js';
import { openJournal } from '../../../../src/engine/journal/journal.js';
import { startMigration, type ValidatedRecord, type RunSummary } from '../../../../src/engine/runner.js';
import { WRITE_PATHS } from '../../../../src/engine/strategies/index.js';
import type { CanonicalUser } from '../../../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { allUsers, client, LICENSE } from '../../../support/cli.js';

const HASH = '$2a$04$0ufm6TCF8gqYSgGO5bplBOzCClCYVYWX3r4Kb9/SoLAgLePE3ENsy';

let dir: string;
let sandbox: RunningSandbox | undefined;
let runs = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-contention-'));
});
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function start(faults?: string): Promise<CoreClient> {
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, faults });
  return client(sandbox.url);
}

/** A run with a fresh journal; `retries`: the client's own retries per request before the step rule sees a 500. */
async function migrate(list: CanonicalUser[], retries: number): Promise<RunSummary> {
  runs += 1;
  const core = createCoreClient({ url: sandbox!.url, retry: { retries, baseDelayMs: 1, maxDelayMs: 2 } });
  const journal = await openJournal(join(dir, `j${runs}.ndjson`), { sources: [`r${runs}`], target: 'sandbox' });
  async function* inputs(): AsyncIterable<ValidatedRecord> {
    for (const record of list) yield { record, origin: { file: 'mem' }, problems: [], valid: true };
  }
  try {
    return await startMigration({
      inputs: inputs(),
      total: list.length,
      strategy: WRITE_PATHS.steps.strategy(),
      core,
      journal,
      concurrency: 1,
    }).done;
  } finally {
    await journal.close();
    core.close();
  }
}

const loginOf = (u: CoreUser, recipeId: string) => u.loginMethods.filter((m) => m.recipeId === recipeId);

describe('exact under contention', () => {
  it('a consume that uses up the code and creates no user, 60% of the time: every user exactly once (restart budget)', async () => {
    const plain = await start('partial=0.6,seed=21');
    const list: CanonicalUser[] = Array.from({ length: 30 }, (_, i) => ({
      id: `p${i}`,
      phoneNumber: `+1415555${String(2000 + i)}`,
      metadata: { n: i },
    }));
    const s = await migrate(list, 3);
    expect(s.totals).toMatchObject({ imported: 30, failed: 0 });
    const users = await allUsers(plain);
    expect(users).toHaveLength(30);
    expect(users.every((u) => loginOf(u, 'passwordless').length === 1)).toBe(true);
  });

  it('lookups that fail after the client retries are asked again like writes: nobody fails, nobody twice', async () => {
    const plain = await start('reads=0.4,seed=22');
    const list: CanonicalUser[] = Array.from({ length: 40 }, (_, i) => ({
      id: `r${i}`,
      email: `r${i}@example.test`,
      password: { hash: HASH },
      ...(i % 2 === 0 ? { thirdParty: [{ providerId: 'google', userId: `g-r${i}` }] } : {}),
    }));
    const s = await migrate(list, 2);
    expect(s.totals).toMatchObject({ imported: 40, failed: 0 });
    // The sandbox still fails 40% of lookups: the read-back retries too (plain never does).
    const reader = createCoreClient({ url: plain.url, retry: { retries: 20, baseDelayMs: 1, maxDelayMs: 5 } });
    expect(await allUsers(reader)).toHaveLength(40);
    reader.close();
  });
});

describe('"already there" checks the whole promise', () => {
  it('a 500 between creating a login and marking its email verified: the same run marks it (third party and passwordless)', async () => {
    const plain = await start('unverified=0.5,seed=23');
    const list: CanonicalUser[] = Array.from({ length: 20 }, (_, i) => ({
      id: `v${i}`,
      email: `v${i}@example.test`,
      emailVerified: true,
      thirdParty: [{ providerId: 'google', userId: `g-v${i}` }],
      otpFactors: { email: `v${i}@example.test` },
    }));
    const s = await migrate(list, 0);
    expect(s.totals).toMatchObject({ imported: 20, failed: 0 });
    const users = await allUsers(plain);
    expect(users).toHaveLength(20);
    for (const u of users) {
      expect(loginOf(u, 'thirdparty').map((m) => m.verified)).toEqual([true]);
      expect(loginOf(u, 'passwordless').map((m) => m.verified)).toEqual([true]);
    }
  });

  it('a rerun finds a third-party login left unverified (a kill between the two writes) and marks it verified', async () => {
    const plain = await start();
    // What the reference leaves after the first of its two transactions: the login, its email not verified.
    for (let i = 0; i < 3; i++) {
      await plain.thirdPartySignInUp({
        thirdPartyId: 'google',
        thirdPartyUserId: `g-k${i}`,
        email: { id: `k${i}@example.test`, isVerified: false },
      });
    }
    const list: CanonicalUser[] = Array.from({ length: 3 }, (_, i) => ({
      id: `k${i}`,
      email: `k${i}@example.test`,
      emailVerified: true,
      thirdParty: [{ providerId: 'google', userId: `g-k${i}` }],
    }));
    const s = await migrate(list, 0);
    expect(s.totals).toMatchObject({ alreadyPresent: 3, failed: 0 });
    const users = await allUsers(plain);
    expect(users.map((u) => loginOf(u, 'thirdparty')[0]!.verified)).toEqual([true, true, true]);
    // A login whose email the source does not call verified is left as it is.
    await plain.thirdPartySignInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-n', email: { id: 'n@example.test', isVerified: false } });
    await migrate([{ id: 'n', email: 'n@example.test', emailVerified: false, thirdParty: [{ providerId: 'google', userId: 'g-n' }] }], 0);
    const n = (await plain.listUsersByAccountInfo({ email: 'n@example.test' })).users[0]!;
    expect(loginOf(n, 'thirdparty')[0]!.verified).toBe(false);
  });
});
