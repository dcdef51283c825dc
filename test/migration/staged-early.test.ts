// The staged path's read-back in the job's pauses (staged-early.ts): once the list holds N rows fewer than the run
// staged and none PROCESSING, the range of the first N users' join times is read back, and the final read-back
// reads only the range of the users still awaited; a run whose first users' join times are spread over the whole
// range is not read early, nor anything more once a read found too few of its users.
// On the sandbox, whose GET /users pages as the reference's (supertokens-core v11.4.4 UserPaginationToken.java;
// postgresql plugin v9.4.2 GeneralQueries.java getPaginatedPrimaryUserIds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../src/core-client/client.js';
import type { CoreClient } from '../../src/core-client/types.js';
import { methodKey } from '../../src/migration/bulk-knowledge.js';
import { EarlyReadBack } from '../../src/migration/staged-early.js';
import { readBack } from '../../src/migration/staged-readback.js';
import { CONFIRMED, STAGED, StagedTable } from '../../src/migration/staged-table.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { listingCounted } from '../support/listing-client.js';

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

describe('read-back while the job works', () => {
  it('reads the range of the users the job has likely imported, then the final read reads only the rest', async () => {
    const T = 1_640_000_000_000;
    const at = (i: number) => T + i * 1000;
    const { core, pages, listed } = counted();
    const table = new StagedTable(N);
    for (let i = 0; i < N; i++) table.add(key(1, i), at(i), STAGED);
    await put(core, 1, 0, N / 2, at); // the job's first claim is done
    const early = new EarlyReadBack(core, table);
    early.consider(N, 0); // nothing gone from the list yet: no read
    await early.idle();
    early.consider(N / 2, 1); // the job works on a claim: not now
    await early.idle();
    expect(pages()).toBe(0);
    early.consider(N / 2, 0);
    await early.idle();
    expect(early.settled).toBe(N / 2);
    for (let i = 0; i < N; i++) expect(table.state[i]).toBe(i < N / 2 ? CONFIRMED : STAGED);
    expect(listed.filter((t) => t < T)).toEqual([]);
    // The same look again reads nothing more.
    const afterEarly = pages();
    early.consider(N / 2, 0);
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
    const table = new StagedTable(N);
    for (let i = 0; i < N; i++) table.add(key(2, i), at(i), STAGED);
    await put(core, 2, 0, N / 2, at);
    const early = new EarlyReadBack(core, table);
    early.consider(N / 2, 0);
    await early.idle();
    expect(pages()).toBe(0);
    expect(early.settled).toBe(0);
    await readBack(core, table); // the final read settles them all the same
    for (let i = 0; i < N; i++) expect(table.state[i]).toBe(i < N / 2 ? CONFIRMED : STAGED);
  });

  it('reads no more early once a read finds fewer than half its users (the job does not take rows in their order)', async () => {
    const T = 1_670_000_000_000;
    const at = (i: number) => T + i * 1000;
    const { core, pages } = counted();
    const table = new StagedTable(N);
    for (let i = 0; i < N; i++) table.add(key(4, i), at(i), STAGED);
    // The job's first claims took users from all over the upload: a quarter of the first half is in the core.
    const quarter = Array.from({ length: N / 8 }, (_, k) => k * 4);
    for (const i of quarter) await put(core, 4, i, i + 1, at);
    const early = new EarlyReadBack(core, table);
    early.consider(N / 2, 0);
    await early.idle();
    expect(early.settled).toBe(N / 8);
    const after = pages();
    early.consider(N / 4, 0);
    await early.idle();
    expect(pages()).toBe(after);
  });

  it('leaves an early read that fails to the final read', async () => {
    const T = 1_660_000_000_000;
    const at = (i: number) => T + i * 1000;
    const table = new StagedTable(N);
    for (let i = 0; i < N; i++) table.add(key(3, i), at(i), STAGED);
    const down = createCoreClient({ url: 'http://127.0.0.1:9', retry: { retries: 0, baseDelayMs: 0, maxDelayMs: 0 } });
    const early = new EarlyReadBack(down, table);
    early.consider(N / 2, 0);
    await early.idle(); // resolves: the failure is not the run's
    expect(early.settled).toBe(0);
    expect(table.countIn(STAGED)).toBe(N);
  });
});
