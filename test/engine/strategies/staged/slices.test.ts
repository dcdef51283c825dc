// The staged path's read-back in slices (issue 24: a million users read back in minutes, not eleven): tokens made
// for a join time start a reader there, each slice stops past its end, and together they read every user of the
// core at least once (users joined at a split point may come twice), on the sandbox whose GET /users pages as the
// reference's (supertokens-core v11.4.4 UserPaginationToken.java; postgresql plugin v9.4.2 GeneralQueries.java,
// getPaginatedPrimaryUserIds: ascending join time, then descending id).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../../../src/core-client/client.js';
import type { CoreUser } from '../../../../src/core-client/types.js';
import { CoreKnowledge } from '../../../../src/engine/strategies/bulk/knowledge.js';
import { readUsersSliced, splitCore, splitPoints } from '../../../../src/engine/strategies/staged/slices.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-slices-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = 1_600_000_000_000;

describe('read-back in slices', () => {
  it('reads every user at least once, whatever the split points, with several users at the same join time', async () => {
    const core = createCoreClient({ url: sandbox.url });
    // 41 users; join times in groups of three equal ones, so that split points fall inside groups.
    const joined = Array.from({ length: 41 }, (_, i) => T0 + Math.floor(i / 3) * 1000);
    for (const [i, t] of joined.entries()) {
      const r = await core.bulkImport.importUser({
        loginMethods: [
          {
            recipeId: 'passwordless',
            tenantIds: ['public'],
            phoneNumber: `+4420700${String(i).padStart(5, '0')}`,
            timeJoinedInMSSinceEpoch: t,
          },
        ],
      });
      expect(r.status).toBe('OK');
    }
    const points = splitPoints(Float64Array.from(joined), 4);
    expect(points).toHaveLength(3);
    for (const [pts, limit] of [
      [points, 2],
      [points, 5],
      [[T0 - 5000, T0 + 4000, T0 + 4000.5, T0 + 99_000], 3], // before all, inside a group, past all
      [[], 7],
    ] as Array<[number[], number]>) {
      const seen = new Map<string, number>();
      let pages = 0;
      await readUsersSliced(
        core,
        pts,
        (page: CoreUser[]) => {
          pages++;
          for (const u of page) seen.set(u.id, (seen.get(u.id) ?? 0) + 1);
        },
        limit,
      );
      expect(seen.size, `points ${pts.join(',')} limit ${limit}`).toBe(41);
      // Only users at a split point may come twice; no slice reads on to the end.
      const twice = [...seen.values()].filter((n) => n > 1).length;
      expect(twice).toBeLessThanOrEqual(3 * pts.length);
      expect(pages).toBeLessThanOrEqual(Math.ceil(41 / limit) + 2 * (pts.length + 1));
    }
  });

  it('learns a core in slices split evenly by join time: every user counted once', async () => {
    const core = createCoreClient({ url: sandbox.url });
    const points = await splitCore(core, 4, 5);
    expect(points.length).toBe(3);
    expect(points[0]).toBeGreaterThan(T0);
    const known = await CoreKnowledge.learn(core, 4, 5);
    expect(known.users).toBe(41);
    for (let i = 0; i < 41; i++) expect(known.has(`public|pl-phone|+4420700${String(i).padStart(5, '0')}`), `user ${i}`).toBe(true);
    expect(await splitCore(core, 4, 500)).toEqual([]); // one page holds them all
  });
});
