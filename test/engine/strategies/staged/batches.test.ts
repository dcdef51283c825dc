// The staged path's read-back with a job that does not claim in the upload's order (staged-batches.ts,
// staged-early.ts): as the reference on PostgreSQL once it has removed rows while later uploads land (its claim has no
// ORDER BY: postgresql plugin v9.4.2 BulkImportQueries.java getBulkImportUsersAndChangeStatusToProcessing), the job
// here takes an upload and half of a later one first. The read-back reads only the uploads whose rows have all left
// the list (asked for with made "<id>;<created_at>" tokens, newest first: BulkImportQueries.java getBulkImportUsers),
// so each read settles every user it reads, and `readTo` (what the results written meanwhile follow) never passes an
// upload the job has not taken whole. On the sandbox, whose staging list pages as the reference's; its own job is
// kept from running (an hour's interval) and the test plays the job: it imports the users and removes their rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient } from '../../../../src/core-client/types.js';
import { ListedBatches } from '../../../../src/engine/strategies/staged/batches.js';
import { EarlyReadBack } from '../../../../src/engine/strategies/staged/early.js';
import { readBack } from '../../../../src/engine/strategies/staged/readback.js';
import { stagedKey, stagingPages } from '../../../../src/engine/strategies/staged/staging-list.js';
import { CONFIRMED, STAGED, StagedTable } from '../../../../src/engine/strategies/staged/table.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { listingCounted } from '../../../support/listing-client.js';

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-batches-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), bulkImportIntervalSec: 3600 });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const UPLOAD = 500;
const UPLOADS = 4;
const T = 1_700_000_000_000;
const at = (i: number) => T + i * 1000;
const phone = (s: number, i: number) => `+44207${s}${String(i).padStart(5, '0')}`;
const body = (s: number, i: number) => ({
  loginMethods: [{ recipeId: 'passwordless' as const, tenantIds: ['public'], phoneNumber: phone(s, i), timeJoinedInMSSinceEpoch: at(i) }],
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stage UPLOADS uploads of series `s` as the run does: each placed in the table, then told to `batches`. */
async function stage(core: CoreClient, s: number, table: StagedTable, batches: ListedBatches): Promise<void> {
  for (let k = 0; k < UPLOADS; k++) {
    const bodies = Array.from({ length: UPLOAD }, (_, j) => body(s, k * UPLOAD + j));
    await core.bulkImport.addUsers(bodies);
    for (const b of bodies) table.markListed(table.add(stagedKey(b), b.loginMethods[0]!.timeJoinedInMSSinceEpoch, STAGED));
    await batches.uploaded(UPLOAD);
    await sleep(3); // the next upload's rows in a later millisecond, as on any core an upload takes longer than that
  }
}

/** The job takes users `from` to before `to` of series `s`: imports each, then removes its row from the list. */
async function take(core: CoreClient, s: number, from: number, to: number): Promise<void> {
  const want = new Set(Array.from({ length: to - from }, (_, j) => stagedKey(body(s, from + j))));
  const ids: string[] = [];
  for await (const page of stagingPages(core)) for (const row of page) if (want.has(stagedKey(row))) ids.push(row.id);
  expect(ids).toHaveLength(to - from);
  for (let i = from; i < to; i++) expect((await core.bulkImport.importUser(body(s, i))).status).toBe('OK');
  await core.bulkImport.removeUsers(ids);
}

const left = async (core: CoreClient) => (await core.bulkImport.countUsers('NEW')).count;

describe('read-back with a job that claims out of the upload order', () => {
  it('reads the uploads taken whole, each read settling all it reads; readTo never passes a user not read back', async () => {
    const { core, listed } = listingCounted(sandbox.url);
    const table = new StagedTable(UPLOAD * UPLOADS);
    const batches = new ListedBatches(core, table);
    await stage(core, 1, table, batches);
    expect(batches.off).toBe(false);
    expect(batches.ends).toEqual([500, 1000, 1500, 2000]);
    let reads = 0;
    const early = new EarlyReadBack(core, table, () => reads++, batches);

    // The job's first claims: upload 0 and half of upload 2 (rows put where removed ones were).
    await take(core, 1, 0, 500);
    await take(core, 1, 1000, 1250);
    early.consider(await left(core), 0, { paused: true }); // the job between runs: what it finished is read
    await early.idle();
    expect(early.readTo).toBe(500);
    expect(early.settled).toBe(500);
    expect(reads).toBe(1);
    // The half of upload 2 in the core waits for the rest of its upload (the read by the counts, of the first 750
    // listed, found users 500-749 missing: readTo stays before them).
    for (let i = 0; i < 2000; i++) expect(table.state[i], String(i)).toBe(i < 500 ? CONFIRMED : STAGED);
    expect(listed.filter((t) => t > at(750) && t < at(1000))).toEqual([]);

    // Upload 1 whole and the rest of upload 2: both read (one run of adjacent uploads), every user read settled.
    await take(core, 1, 500, 1000);
    await take(core, 1, 1250, 1500);
    listed.length = 0;
    early.consider(await left(core), 0, { paused: true }); // the job between runs: what it finished is read
    await early.idle();
    expect(early.readTo).toBe(1500);
    expect(early.settled).toBe(1500);
    expect(listed.filter((t) => t < at(500) || t > at(1500)).length).toBeLessThanOrEqual(1);

    // One row of upload 3 still waiting: the read by the counts settles the others, readTo stops at that row.
    await take(core, 1, 1500, 1999);
    early.consider(await left(core), 0, { paused: true }); // the job between runs: what it finished is read
    await early.idle();
    expect(early.readTo).toBe(1999);
    expect(table.state[1999]).toBe(STAGED);
    // The job done: the final read-back reads only upload 3.
    await take(core, 1, 1999, 2000);
    listed.length = 0;
    await readBack(core, table);
    for (let i = 0; i < 2000; i++) expect(table.state[i], String(i)).toBe(CONFIRMED);
    expect(listed.filter((t) => t < at(1500))).toEqual([]);
  });

  it("at the job's tail (few rows left beside a large run) reads back every user out of the list, whatever its upload", async () => {
    const { core, listed } = listingCounted(sandbox.url);
    const table = new StagedTable(UPLOAD * UPLOADS);
    const batches = new ListedBatches(core, table);
    await stage(core, 3, table, batches);
    let reads = 0;
    // The tail from 1,000 rows left in a run of 2,000 (a million's are 50,000 and 100,000: early.ts TAIL).
    const early = new EarlyReadBack(core, table, () => reads++, batches, { rowsLeft: 1_000, runFrom: 2_000 });
    // Claims that take the first half of every upload: no upload is taken whole.
    for (let k = 0; k < UPLOADS; k++) await take(core, 3, k * UPLOAD, k * UPLOAD + UPLOAD / 2);
    expect(await left(core)).toBe(1_000);
    listed.length = 0;
    early.consider(await left(core), 0); // not paused: 1,000 out since the tail was last read
    await early.idle();
    // Every user out of the list read back (the uploads' way would have read none: no upload is whole).
    for (let i = 0; i < 2000; i++) expect(table.state[i], String(i)).toBe(i % UPLOAD < UPLOAD / 2 ? CONFIRMED : STAGED);
    expect(early.settled).toBe(1_000);
    expect(early.readTo).toBe(UPLOAD / 2); // the first user still in the list
    expect(reads).toBe(1);
    // Read again only once another 1,000 are out (or the job pauses).
    await take(core, 3, UPLOAD / 2, UPLOAD);
    early.consider(await left(core), 0);
    await early.idle();
    expect(early.settled).toBe(1_000);
    early.consider(await left(core), 0, { paused: true });
    await early.idle();
    expect(early.settled).toBe(1_250);
    expect(early.readTo).toBe(UPLOAD + UPLOAD / 2);
    // Below the run size the tail is never read: a run of 2,000 with a tail from 4,000 goes by its uploads alone.
    const small = new EarlyReadBack(core, new StagedTable(1), () => undefined, undefined, { rowsLeft: 1_000, runFrom: 4_000 });
    small.consider(500, 0, { listed: 2_000 });
    await small.idle();
    expect(small.reads).toBe(0);
  });

  it('tells nothing apart when rows were listed outside the uploads (found staged by an earlier run): the counts decide', async () => {
    const { core } = listingCounted(sandbox.url);
    const table = new StagedTable(UPLOAD);
    const batches = new ListedBatches(core, table);
    // A row found staged, then an upload: the listed rows outnumber the upload's.
    const found = body(2, 0);
    await core.bulkImport.addUsers([found]);
    table.markListed(table.add(stagedKey(found), at(0), STAGED));
    const bodies = Array.from({ length: 10 }, (_, j) => body(2, 1 + j));
    await sleep(3);
    await core.bulkImport.addUsers(bodies);
    for (const b of bodies) table.markListed(table.add(stagedKey(b), b.loginMethods[0]!.timeJoinedInMSSinceEpoch, STAGED));
    await batches.uploaded(bodies.length);
    expect(batches.off).toBe(true);
    expect(await batches.probe()).toEqual([]);
  });
});
