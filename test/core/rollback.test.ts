// `auth-migrate rollback` against a real core (`npm run test:core`): the core named by AUTH_MIGRATE_TEST_CORE_URL
// (+ AUTH_MIGRATE_TEST_CORE_API_KEY), e.g. the reference SuperTokens core or a staging core; skipped, saying why,
// without one. Shares the core with others: every user has this run's own prefix, and only those are looked at.
// After a run (per-user steps; --via bulk where the core offers bulk import; --via bulk-staged when
// AUTH_MIGRATE_TEST_CORE_STAGED=1, as the job may run only every 300 s): users changed through the core's API as a
// live app would are kept, the rest removed, read back user by user; --keep-source-ids leaves exactly the users that
// were there before; a mapping on a present user whose email the run verified comes off with exit 0.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient, CoreUser } from '../../src/core-client/types.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { cli, summaryOf } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';
import { CORE_API_KEY, CORE_URL, coreClient, coreFeatures, runPrefix, scratch, skippedWithoutCore } from '../support/real-core.js';

const URL_ = CORE_URL;
const STAGED = process.env.AUTH_MIGRATE_TEST_CORE_STAGED === '1';
const skipped = skippedWithoutCore('test/core/rollback.test.ts');

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const SECRET = 'JBSWY3DPEHPK3PXP';
let dir: string;
let removeDir: () => void = () => undefined;
let core: CoreClient;
let features: string[] = [];
let bulk = false;
const env = { AUTH_MIGRATE_API_KEY: CORE_API_KEY };

beforeAll(async () => {
  if (skipped) return;
  ({ dir, remove: removeDir } = scratch('rollback'));
  core = coreClient();
  features = await coreFeatures(core);
  bulk = await core.bulkImport.countUsers().then(
    () => true,
    () => false,
  );
});
afterAll(() => {
  core?.close();
  removeDir();
});

const linking = () => features.includes('account_linking');
const totp = () => features.includes('mfa');
const prefix = () => runPrefix('rb');
const byEmail = async (email: string): Promise<CoreUser | undefined> => (await core.listUsersByAccountInfo({ email })).users[0];
const run = (args: string[]) => cli(['run', ...args, '--core', URL_!, '--yes', '--json'], dir, env);
const rollback = (args: string[]) => cli(['rollback', ...args, '--yes', '--json'], dir, env);

/** What a user that was there before looks like, to compare before and after. */
async function snapshot(users: CoreUser[]): Promise<string> {
  const out = [];
  for (const u of users) {
    const now = await core.getUserById(u.id);
    out.push(now.status === 'OK' ? now.user : 'gone');
  }
  return JSON.stringify(out);
}

describe.skipIf(skipped)(`rollback against ${URL_ ?? 'AUTH_MIGRATE_TEST_CORE_URL (not set)'}`, () => {
  const vias = () => [['steps'], ...(bulk ? [['bulk']] : []), ...(bulk && STAGED ? [['bulk-staged']] : [])];

  it('after a run on each --via path the core offers, keeps users changed since and the users there before, removes the rest', async () => {
    for (const [via] of vias()) {
      const p = prefix();
      const pw = { hash: BCRYPT };
      const users: CanonicalUser[] = [
        // a and b get a link and a device where the core has those features; c an email change; d-e stay as they are.
        {
          id: `${p}a`,
          email: `${p}a@example.test`,
          password: pw,
          ...(linking() ? { thirdParty: [{ providerId: 'google', userId: `g-${p}a` }] } : {}),
        },
        { id: `${p}b`, email: `${p}b@example.test`, password: pw, ...(totp() ? { totp: [{ secret: SECRET, deviceName: 'phone' }] } : {}) },
        { id: `${p}c`, email: `${p}c@example.test`, password: pw },
        { id: `${p}d`, email: `${p}d@example.test`, password: pw, externalUserId: `${p}-ext-d` },
        { id: `${p}e`, email: `${p}e@example.test`, password: pw },
        { id: `${p}pre`, email: `${p}pre@example.test`, password: pw },
      ];
      const other = await core.importPasswordHash({ email: `${p}-other@example.test`, passwordHash: BCRYPT });
      const pre = await core.importPasswordHash({ email: `${p}pre@example.test`, passwordHash: BCRYPT });
      const before = await snapshot([other.user, pre.user]);
      writeNdjson(join(dir, `${p}.ndjson`), users);
      const r = await run([`${p}.ndjson`, '--via', via!, '--journal', `${p}.journal.ndjson`]);
      expect(r.exitCode, `${via}: ${r.stderr}`).toBe(0);
      expect(summaryOf(r.stdout)).toMatchObject({ imported: 5, alreadyPresent: 1, failed: 0 });

      const kept: string[] = [`${p}c`];
      if (linking()) {
        const a = (await byEmail(`${p}a@example.test`))!;
        const gh = await core.thirdPartySignInUp({
          thirdPartyId: 'github',
          thirdPartyUserId: `gh-${p}a`,
          email: { id: `${p}a-gh@example.test`, isVerified: true },
        });
        expect(gh.status === 'OK' && (await core.linkAccounts(gh.recipeUserId, a.id)).status).toBe('OK');
        kept.push(`${p}a`);
      }
      if (totp()) {
        const b = (await byEmail(`${p}b@example.test`))!;
        expect((await core.importTotpDevice({ userId: b.id, deviceName: 'laptop', secretKey: SECRET, period: 30, skew: 1 })).status).toBe(
          'OK',
        );
        kept.push(`${p}b`);
      }
      const c = (await byEmail(`${p}c@example.test`))!;
      await core.raw({ method: 'PUT', path: '/recipe/user', scope: 'app', body: { recipeUserId: c.id, email: `${p}c-new@example.test` } });

      const undo = await rollback(['--journal', `${p}.journal.ndjson`]);
      expect(undo.exitCode, `${via}: ${undo.stderr}`).toBe(0);
      expect(summaryOf(undo.stdout)).toMatchObject({ removed: 5 - kept.length, kept: kept.length, failed: 0 });
      for (const k of kept) expect(undo.stderr).toContain(`kept: user ${k}: changed since the run`);
      // Read back one by one: the changed users whole, the others gone (their mapping too), the earlier users as they were.
      if (linking()) expect((await byEmail(`${p}a@example.test`))!.loginMethods.length).toBe(3);
      if (totp()) expect((await core.listTotpDevices((await byEmail(`${p}b@example.test`))!.id)).devices.length).toBe(2);
      expect(await byEmail(`${p}c-new@example.test`)).toBeDefined();
      for (const gone of ['d', 'e', ...(linking() ? [] : ['a']), ...(totp() ? [] : ['b'])])
        expect(await byEmail(`${p}${gone}@example.test`), `${via}: ${p}${gone}`).toBeUndefined();
      expect((await core.getUserIdMapping(`${p}-ext-d`, 'EXTERNAL')).status).toBe('UNKNOWN_MAPPING_ERROR');
      expect(await snapshot([other.user, pre.user])).toBe(before);

      // --force: the run's part of the changed users goes; what the app added stays.
      const forced = await rollback(['--journal', `${p}.journal.ndjson`, '--force']);
      expect(forced.exitCode, `${via}: ${forced.stderr}`).toBe(0);
      expect(summaryOf(forced.stdout)).toMatchObject({ removed: kept.length, kept: 0, failed: 0 });
      for (const gone of ['a', 'b', 'c-new']) expect(await byEmail(`${p}${gone}@example.test`)).toBeUndefined();
      if (linking()) {
        const gh = (await core.listUsersByAccountInfo({ thirdPartyId: 'github', thirdPartyUserId: `gh-${p}a` })).users;
        expect(gh.map((u) => u.loginMethods.map((m) => m.recipeId))).toEqual([['thirdparty']]);
      }
      expect(await snapshot([other.user, pre.user])).toBe(before);
    }
  }, 900_000);

  it('after --keep-source-ids leaves exactly the users that were there before', async () => {
    const p = prefix();
    const before = await core.importPasswordHash({ email: `${p}-before@example.test`, passwordHash: BCRYPT });
    writeNdjson(join(dir, `${p}.ndjson`), [
      { id: `${p}1`, email: `${p}1@example.test`, password: { hash: BCRYPT } },
      { id: `${p}2`, email: `${p}2@example.test`, password: { hash: BCRYPT }, ...(totp() ? { totp: [{ secret: SECRET }] } : {}) },
    ]);
    const r = await run([`${p}.ndjson`, '--keep-source-ids', '--journal', `${p}.journal.ndjson`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await core.getUserIdMapping(`${p}1`, 'EXTERNAL')).status).toBe('OK');
    const undo = await rollback(['--journal', `${p}.journal.ndjson`]);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(summaryOf(undo.stdout)).toMatchObject({ removed: 2, failed: 0 });
    for (const n of ['1', '2']) {
      expect(await byEmail(`${p}${n}@example.test`)).toBeUndefined();
      expect((await core.getUserIdMapping(`${p}${n}`, 'EXTERNAL')).status).toBe('UNKNOWN_MAPPING_ERROR');
    }
    expect((await core.getUserById(before.user.id)).status).toBe('OK');
  }, 300_000);

  it('takes the mapping off a present user whose email the run verified, exit 0', async () => {
    const p = prefix();
    const present = await core.importPasswordHash({ email: `${p}@example.test`, passwordHash: BCRYPT });
    writeNdjson(join(dir, `${p}.ndjson`), [
      { id: `${p}`, email: `${p}@example.test`, emailVerified: true, externalUserId: `${p}-ext`, password: { hash: BCRYPT } },
    ]);
    const r = await run([`${p}.ndjson`, '--journal', `${p}.journal.ndjson`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await core.getUserIdMapping(`${p}-ext`, 'EXTERNAL')).status).toBe('OK');
    const undo = await rollback(['--journal', `${p}.journal.ndjson`]);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(summaryOf(undo.stdout)).toMatchObject({ undone: 1, failed: 0 });
    expect((await core.getUserIdMapping(`${p}-ext`, 'EXTERNAL')).status).toBe('UNKNOWN_MAPPING_ERROR');
    const now = await core.getUserById(present.user.id);
    expect(now.status === 'OK' && now.user.loginMethods.map((m) => [m.recipeUserId, m.verified])).toEqual([[present.user.id, true]]);
  }, 300_000);
});
