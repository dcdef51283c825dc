// The staged path's read-back after the job (issue 24: bulk-staged at the bare script's pace, the proof included):
// only the core's users who joined from the first to the last join time of the users still awaited are read, in
// slices from 2,000 awaited users; a user imported by the run is CONFIRMED with the core's id, one held with
// another join time inside the range is PRESENT, one held outside it stays as it was (STAGED is then reported gone;
// EXISTS goes to the per-user steps, which look it up), and nothing is read when none is awaited. On the sandbox,
// whose GET /users pages as the reference's (supertokens-core v11.4.4 UserPaginationToken.java; postgresql plugin
// v9.4.2 GeneralQueries.java getPaginatedPrimaryUserIds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient } from '../../../../src/core-client/types.js';
import { methodKey } from '../../../../src/engine/strategies/bulk/knowledge.js';
import { readBack } from '../../../../src/engine/strategies/staged/readback.js';
import { skipGaps } from '../../../../src/engine/strategies/staged/slices.js';
import { CONFIRMED, EXISTS, PRESENT, STAGED, StagedTable } from '../../../../src/engine/strategies/staged/table.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { listingCounted } from '../../../support/listing-client.js';

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-readback-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const phone = (s: number, i: number) => `+44207${s}${String(i).padStart(5, '0')}`;
const key = (s: number, i: number) => methodKey({ recipeId: 'passwordless', tenantIds: ['public'], phoneNumber: phone(s, i) });

async function put(core: CoreClient, s: number, i: number, joined: number): Promise<void> {
  const r = await core.bulkImport.importUser({
    loginMethods: [{ recipeId: 'passwordless', tenantIds: ['public'], phoneNumber: phone(s, i), timeJoinedInMSSinceEpoch: joined }],
  });
  expect(r.status).toBe('OK');
}

const counted = () => listingCounted(sandbox.url);

describe('read-back after the job', () => {
  it('reads the awaited join-time range only, and settles what it finds there', async () => {
    const T = 1_630_000_000_000;
    const { core, pages, listed } = counted();
    // The core's other users: 30 who joined long before the run's, 30 long after.
    for (let i = 0; i < 30; i++) await put(core, 1, i, T - 86_400_000 - i * 1000);
    for (let i = 0; i < 30; i++) await put(core, 2, i, T + 86_400_000 + i * 1000);
    const table = new StagedTable(14);
    const rows = Array.from({ length: 12 }, (_, i) => table.add(key(3, i), T + i * 1000, STAGED));
    for (let i = 1; i < 11; i++) await put(core, 3, i, T + i * 1000); // 0 and 11 never came
    await put(core, 3, 11, T + 5500); // ... but 11 is held, with a join time of its own inside the range
    // Two users partly there (EXISTS): one held with another time inside the range, one held long before it.
    const inside = table.add(key(4, 0), T + 2000, EXISTS);
    await put(core, 4, 0, T + 2500);
    const outside = table.add(key(4, 1), T + 3000, EXISTS);
    await put(core, 4, 1, T - 2 * 86_400_000);
    await readBack(core, table);
    expect(rows.slice(1, 11).every((i) => table.state[i] === CONFIRMED)).toBe(true);
    expect(rows.slice(1, 11).every((i) => typeof table.foundIds.get(i) === 'string')).toBe(true);
    expect(table.state[rows[0]!]).toBe(STAGED); // not in the core: reported gone from the list
    expect(table.state[rows[11]!]).toBe(PRESENT);
    expect(table.state[inside]).toBe(PRESENT);
    expect(table.state[outside]).toBe(EXISTS); // left to the per-user steps
    // One page from the range's start (no probe of the token first); not one of the users who joined before it.
    expect(pages()).toBe(1);
    expect(listed.filter((t) => t < T)).toEqual([]);
    // Nothing awaited any more: no request at all.
    table.setState(rows[0]!, CONFIRMED);
    table.setState(outside, PRESENT);
    const before = pages();
    await readBack(core, table);
    expect(pages()).toBe(before);
  });

  it('skips the settled users between groups of awaited ones: a few left behind do not make it read everything', async () => {
    // A claim's first rows taken with the claim before (the reference's claim has no ORDER BY): after the reads
    // while the job worked, users 2 and 1,998 of the first 2,000 are still awaited, with the last 1,000.
    const T = 1_632_000_000_000;
    const N = 3_000;
    const { core, pages, listed } = counted();
    const table = new StagedTable(N);
    for (let i = 0; i < N; i++) table.add(key(5, i), T + i * 1000, STAGED);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < N) await put(core, 5, next++, T + (next - 1) * 1000);
      }),
    );
    const awaited = (i: number) => i === 2 || i === 1_998 || i >= 2_000;
    for (let i = 0; i < N; i++) if (!awaited(i)) table.setState(i, CONFIRMED);
    await readBack(core, table);
    for (let i = 0; i < N; i++) expect(table.state[i], String(i)).toBe(CONFIRMED);
    // The last 1,000 (2 pages, and the one user past them), users 2 and 1,998 on their own: not the 1,995 between.
    // (a group of one asks for two users: its own, and the one after it that shows the group is done)
    const between = listed.filter((t) => t > T + 2_000 && t < T + 1_998_000);
    expect(between.length).toBeLessThanOrEqual(1);
    expect(pages()).toBeLessThanOrEqual(6);
  });
});

describe('skipGaps', () => {
  const times = (...t: number[]) => Float64Array.from(t);
  it('splits where a page or more of known users lies between two awaited ones, the widest gaps first', () => {
    const all = Float64Array.from({ length: 100 }, (_, i) => i);
    const groups = skipGaps(all, times(1, 2, 30, 31, 97, 99), 3, 10).map((g) => [...g]);
    expect(groups).toEqual([
      [1, 2],
      [30, 31],
      [97, 99],
    ]);
    // At most `parts` groups: the widest gap (32-96) is skipped first.
    expect(skipGaps(all, times(1, 2, 30, 31, 97, 99), 2, 10).map((g) => [...g])).toEqual([
      [1, 2, 30, 31],
      [97, 99],
    ]);
    // Gaps narrower than `minGap` are read through; equal join times stay together.
    expect(skipGaps(all, times(5, 9, 9, 12), 4, 10).map((g) => [...g])).toEqual([[5, 9, 9, 12]]);
    expect(skipGaps(all, times(3), 4, 10).map((g) => [...g])).toEqual([[3]]);
  });
});
