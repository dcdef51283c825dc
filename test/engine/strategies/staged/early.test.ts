// The staged path's read-back with the job (staged-early.ts): once the list holds N of the run's rows fewer than it
// listed (NEW and PROCESSING), the first N listed users are read back (only their range of join times), while the
// job works on its next claim; the final read-back reads only the range of the users still awaited; a user read
// before the job imported it (a claim's chunks done out of order) is read once more with the next read; a run
// whose first users' join times are spread over the whole range is not read early.
// On the sandbox, whose GET /users pages as the reference's (supertokens-core v11.4.4 UserPaginationToken.java;
// postgresql plugin v9.4.2 GeneralQueries.java getPaginatedPrimaryUserIds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../../../src/core-client/client.js';
import type { CoreClient } from '../../../../src/core-client/types.js';
import { methodKey } from '../../../../src/engine/strategies/bulk/knowledge.js';
import { EarlyReadBack } from '../../../../src/engine/strategies/staged/early.js';
import { readBack } from '../../../../src/engine/strategies/staged/readback.js';
import { CONFIRMED, STAGED, StagedTable } from '../../../../src/engine/strategies/staged/table.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { listingCounted } from '../../../support/listing-client.js';

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-early-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const N = 4_000;
const phone = (s: number, i: number) => `+44208${s}${String(i).padStart(5, '0')}`;
const key = (s: number, i: number) => methodKey({ recipeId: 'passwordless', tenantIds: ['public'], phoneNumber: phone(s, i) });

/** Users `from` to before `to` of series `s` imported (as the job would), joined at `joined(i)`, 16 at once. */
async function put(core: CoreClient, s: number, from: number, to: number, joined: (i: number) => number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const r = await core.bulkImport.importUser({
        loginMethods: [{ recipeId: 'passwordless', tenantIds: ['public'], phoneNumber: phone(s, i), timeJoinedInMSSinceEpoch: joined(i) }],
      });
      expect(r.status).toBe('OK');
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const counted = () => listingCounted(sandbox.url);

/** A table of `n` users of series `s`, each listed (staged) in index order, joined at `at(i)`. */
function listedTable(s: number, n: number, at: (i: number) => number): StagedTable {
  const table = new StagedTable(n);
  for (let i = 0; i < n; i++) table.markListed(table.add(key(s, i), at(i), STAGED));
  return table;
}

describe('read-back with the job', () => {
  it('reads a claim back while the job imports the next, then the final read reads only the rest', async () => {
    const T = 1_640_000_000_000;
    const at = (i: number) => T + i * 1000;
    const { core, pages, listed } = counted();
    const table = listedTable(1, N, at);
    await put(core, 1, 0, N / 2, at); // the job's first claim is done
    let reads = 0;
    const early = new EarlyReadBack(core, table, () => reads++);
    early.consider(N, 0); // nothing gone from the list yet: no read
    await early.idle();
    expect(pages()).toBe(0);
    early.consider(N / 4, N / 4); // the job works on its next claim: the first is read now
    await early.idle();
    expect(early.settled).toBe(N / 2);
    expect(early.readTo).toBe(N / 2);
    expect(reads).toBe(1);
    for (let i = 0; i < N; i++) expect(table.state[i]).toBe(i < N / 2 ? CONFIRMED : STAGED);
    expect(listed.filter((t) => t < T)).toEqual([]);
    // The same look again reads nothing more.
    const afterEarly = pages();
    early.consider(N / 4, N / 4);
    await early.idle();
    expect(pages()).toBe(afterEarly);

    await put(core, 1, N / 2, N, at);
    listed.length = 0;
    await readBack(core, table);
    for (let i = 0; i < N; i++) expect(table.state[i]).toBe(CONFIRMED);
    // Only the rest's range: not one of the users settled early is listed again.
    expect(listed.filter((t) => t < at(N / 2))).toEqual([]);
    const rest = listed.filter((t) => t >= at(N / 2) && t <= at(N - 1));
    expect(new Set(rest).size).toBe(N / 2);
    // A user at one of the 3 split points is read by both slices, and a slice's last page (a page of the users it
    // expects still, plus one) may hold the next slice's first users: a few users more, not a page more.
    expect(rest.length).toBeLessThanOrEqual(N / 2 + 9);
  });

  it('does not read early when the first users staged joined all over the range (a source not in join-time order)', async () => {
    const T = 1_650_000_000_000;
    // Index i joined at a time spread over the whole range: the first half's range holds the second half too.
    const at = (i: number) => T + ((i * 7919) % N) * 1000;
    const { core, pages } = counted();
    const table = listedTable(2, N, at);
    await put(core, 2, 0, N / 2, at);
    const early = new EarlyReadBack(core, table);
    early.consider(N / 2, 0);
    await early.idle();
    expect(pages()).toBe(0);
    expect(early.settled).toBe(0);
    expect(early.readTo).toBe(0);
    await readBack(core, table); // the final read settles them all the same
    for (let i = 0; i < N; i++) expect(table.state[i]).toBe(i < N / 2 ? CONFIRMED : STAGED);
  });

  it("a claim's second chunk imported before its first: the first chunk's users are read once more with the next read", async () => {
    const T = 1_670_000_000_000;
    const at = (i: number) => T + i * 1000;
    const { core, listed } = counted();
    const table = listedTable(4, N, at);
    // A claim of the first half in two chunks: the second (users 1,000-1,999) is in the core, the first not yet.
    await put(core, 4, N / 4, N / 2, at);
    const early = new EarlyReadBack(core, table);
    early.consider(N / 2, 0);
    await early.idle();
    expect(early.settled).toBe(N / 4);
    expect(early.readTo).toBe(N / 2);
    for (let i = 0; i < N / 2; i++) expect(table.state[i], String(i)).toBe(i < N / 4 ? STAGED : CONFIRMED);
    // The first chunk, then the next claim's first chunk: the next read takes the first chunk again.
    await put(core, 4, 0, N / 4, at);
    await put(core, 4, N / 2, (3 * N) / 4, at);
    listed.length = 0;
    early.consider(0, N / 4); // the next claim's second chunk still PROCESSING
    await early.idle();
    expect(early.readTo).toBe((3 * N) / 4);
    for (let i = 0; i < N; i++) expect(table.state[i], String(i)).toBe(i < (3 * N) / 4 ? CONFIRMED : STAGED);
    // The users settled by the first read were skipped (a gap of settled users between the two groups).
    expect(listed.filter((t) => t >= at(N / 4 + 10) && t < at(N / 2 - 10))).toEqual([]);
  });

  it('reads no more before the job is done once reads settle few of their users (the claims do not follow the upload)', async () => {
    const T = 1_680_000_000_000;
    const at = (i: number) => T + i * 1000;
    const { core, pages } = counted();
    const table = listedTable(5, N, at);
    // The job's claims took rows from all over the table: a quarter of the users of each stretch is in the core.
    const everyFourth = async (from: number, to: number) => {
      for (let i = from; i < to; i += 4) await put(core, 5, i, i + 1, at);
    };
    await everyFourth(0, N / 2);
    const early = new EarlyReadBack(core, table);
    early.consider(N / 2, 0);
    await early.idle();
    expect(early.settled).toBe(N / 8);
    expect(early.off).toBe(false); // one read tells little (a claim's chunks may come out of order)
    await everyFourth(N / 2, (3 * N) / 4);
    early.consider(N / 4, 0);
    await early.idle();
    expect(early.settled).toBe(N / 8 + N / 16);
    expect(early.off).toBe(true);
    const after = pages();
    await everyFourth((3 * N) / 4, N);
    early.consider(N / 8, N / 8);
    await early.idle();
    expect(pages()).toBe(after);
  });

  it('reads fewer users than the threshold once the job has paused (its run ended), never while it works', async () => {
    const T = 1_690_000_000_000;
    const at = (i: number) => T + i * 1000;
    const { core, pages } = counted();
    const table = listedTable(6, N, at);
    await put(core, 6, 0, 300, at); // a claim of 300 users done
    const early = new EarlyReadBack(core, table);
    early.consider(N - 300, 0); // between two claims of a run: too few to be worth a read yet
    await early.idle();
    expect(pages()).toBe(0);
    early.consider(N - 300, 0, { paused: true }); // the run ended (or the job is held): its results are not kept waiting
    await early.idle();
    expect(early.readTo).toBe(300);
    expect(early.settled).toBe(300);
    await put(core, 6, 300, 600, at);
    const before = pages();
    early.consider(N - 700, 100); // the next run's claim under way: 300 more out, too few to read while the job works
    await early.idle();
    expect(pages()).toBe(before);
    early.consider(N - 600, 0, { paused: true });
    await early.idle();
    expect(early.readTo).toBe(600);
    expect(early.settled).toBe(600);
  });

  it('counts out only the rows listed before the counts were asked for', async () => {
    const T = 1_695_000_000_000;
    const at = (i: number) => T + i * 1000;
    const { core, pages } = counted();
    const table = listedTable(7, N, at);
    await put(core, 7, 0, N / 4, at);
    const early = new EarlyReadBack(core, table);
    // Half the rows were listed when the job was counted, the other half listed (answered) meanwhile: the job's
    // NEW count of N / 2 holds none of the first half's rows out, whatever the table lists now.
    early.consider(N / 2, 0, { listed: N / 2 });
    await early.idle();
    expect(pages()).toBe(0);
    expect(early.readTo).toBe(0);
  });

  it('leaves an early read that fails to the next one', async () => {
    const T = 1_660_000_000_000;
    const at = (i: number) => T + i * 1000;
    const table = listedTable(3, N, at);
    const down = createCoreClient({ url: 'http://127.0.0.1:9', retry: { retries: 0, baseDelayMs: 0, maxDelayMs: 0 } });
    const early = new EarlyReadBack(down, table);
    early.consider(N / 2, 0);
    await early.idle(); // resolves: the failure is not the run's
    expect(early.settled).toBe(0);
    expect(early.readTo).toBe(0);
    expect(table.countIn(STAGED)).toBe(N);
  });
});
