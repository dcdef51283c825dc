// The look-ups the staged path makes into a core many times larger than the run (staged-lookup.ts): the
// by-accountinfo queries cover every login method's account info (a union of one email, one phone and one
// third-party id each), and a user held by any of them, or by its external id, is known held; on the sandbox,
// whose GET /users/by-accountinfo answers as the reference's AuthRecipe.getUsersByAccountInfo.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../../../src/core-client/client.js';
import type { BulkUserBody } from '../../../../src/core-client/import-bodies.js';
import { accountQueries, lookUpHeld } from '../../../../src/engine/strategies/staged/lookup.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-staged-lookup-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const ep = (email: string) => ({ recipeId: 'emailpassword' as const, email, passwordHash: BCRYPT, hashingAlgorithm: 'BCRYPT' });
const tp = (id: string, userId: string, email: string) => ({
  recipeId: 'thirdparty' as const,
  thirdPartyId: id,
  thirdPartyUserId: userId,
  email,
});
const pl = (phoneNumber: string) => ({ recipeId: 'passwordless' as const, phoneNumber });
const sequential = async <T>(items: Iterable<T>, fn: (item: T) => Promise<void>) => {
  for (const item of items) await fn(item);
};

describe('staged look-ups', () => {
  it('cover each login method: one query for an email and its third-party login, another for a second email', () => {
    expect(accountQueries([ep('a@x.test'), tp('google', 'g1', 'a@x.test')])).toEqual([
      { doUnionOfAccountInfo: true, email: 'a@x.test', thirdPartyId: 'google', thirdPartyUserId: 'g1' },
    ]);
    expect(accountQueries([ep('a@x.test'), tp('google', 'g1', 'b@x.test'), pl('+14155550100')])).toEqual([
      { doUnionOfAccountInfo: true, email: 'a@x.test', thirdPartyId: 'google', thirdPartyUserId: 'g1', phoneNumber: '+14155550100' },
      { doUnionOfAccountInfo: true, email: 'b@x.test' },
    ]);
  });

  it('know a user held by its email, third-party id, phone or external id, and no other, without listing the core', async () => {
    const core = createCoreClient({ url: sandbox.url });
    const put = async (body: BulkUserBody) => expect((await core.bulkImport.importUser(body)).status).toBe('OK');
    await put({ loginMethods: [{ ...ep('held@x.test'), tenantIds: ['public'] }] });
    await put({ loginMethods: [{ ...tp('github', 'gh-7', 'someone@x.test'), tenantIds: ['public'] }] });
    await put({ loginMethods: [{ ...pl('+14155550177'), tenantIds: ['public'] }] });
    await put({ externalUserId: 'ext-held', loginMethods: [{ ...ep('mapped@x.test'), tenantIds: ['public'] }] });
    let listed = 0;
    const list = core.listUsers.bind(core);
    core.listUsers = async (input) => {
      listed++;
      return list(input);
    };
    const bodies: Record<string, BulkUserBody> = {
      email: { loginMethods: [ep('HELD@x.test')] },
      thirdParty: { loginMethods: [tp('github', 'gh-7', 'other@x.test')] },
      phone: { loginMethods: [pl('+14155550177')] },
      external: { externalUserId: 'ext-held', loginMethods: [ep('new@x.test')] },
      absent: { externalUserId: 'ext-new', loginMethods: [ep('absent@x.test'), tp('github', 'gh-8', 'absent@x.test'), pl('+14155550199')] },
    };
    const known = await lookUpHeld(core, Object.values(bodies), sequential);
    const held = Object.fromEntries(Object.entries(bodies).map(([k, b]) => [k, known.holdsAnyOf(b)]));
    expect(held).toEqual({ email: true, thirdParty: true, phone: true, external: true, absent: false });
    expect(listed).toBe(0);
    core.close();
  });
});
