// Conformance: the bulk-import processing job, as the reference core's ProcessBulkImportUsersCronJobTest
// (shouldProcessBulkImportUsersInTheSameTenant, shouldProcessBulkImportUsersInMultipleTenantsWithDifferentStorages
// reduced to one storage, shouldDeleteEverythingFromTheDBIfAnythingFails): staged users are imported with their
// timeJoined and leave the list, a user the import refuses stays FAILED with the reference's message; and the
// sandbox's own promise: a SIGKILL mid-processing then a restart imports each staged user exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BCRYPT, LICENSE, call, client, startTestSandbox } from '../../support/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'am-bulk-job-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function waitFor(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const waiting = async (url: string): Promise<number> => {
  const n = await call(url, 'GET', '/bulk-import/users/count?status=NEW');
  const p = await call(url, 'GET', '/bulk-import/users/count?status=PROCESSING');
  return n.json.count + p.json.count;
};

describe('the bulk-import job (ProcessBulkImportUsersCronJobTest)', () => {
  it('imports staged users with their timeJoined; a refused one stays FAILED with the E0xx message', async () => {
    const sb = await startTestSandbox({ licenseKey: LICENSE, bulkImportIntervalSec: 0.2 });
    const c = client(sb);
    try {
      await c.post('/recipe/signup', { email: 'taken@x.io', password: 'secret-123' });
      const users = [0, 1, 2].map((i) => ({
        externalUserId: `ext-${i}`,
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: i === 2 ? 'taken@x.io' : `u${i}@x.io`,
            passwordHash: BCRYPT,
            hashingAlgorithm: 'bcrypt',
            isPrimary: true,
            isVerified: true,
            timeJoinedInMSSinceEpoch: 1_000_000_000_000 + i,
          },
          { recipeId: 'passwordless', phoneNumber: `+1415555010${i}`, timeJoinedInMSSinceEpoch: 900_000_000_000 + i },
        ],
      }));
      const staged = await c.post('/bulk-import/users', { users });
      expect(staged.json.users.map((u: { userId: string }) => u.userId)).toEqual(['ext-0', 'ext-1', 'ext-2']);
      await waitFor(async () => (await waiting(sb.url)) === 0);
      for (const i of [0, 1]) {
        const u = (await c.get(`/user/id?userId=ext-${i}`)).json.user;
        expect(u.timeJoined).toBe(900_000_000_000 + i);
        expect(u.loginMethods.map((m: { timeJoined: number }) => m.timeJoined)).toEqual([900_000_000_000 + i, 1_000_000_000_000 + i]);
        expect((await c.post('/recipe/signin', { email: `u${i}@x.io`, password: 'U*U' })).json.user.id).toBe(`ext-${i}`);
      }
      const left = await c.get('/bulk-import/users');
      expect(left.json.users).toHaveLength(1);
      expect(left.json.users[0]).toMatchObject({
        externalUserId: 'ext-2',
        status: 'FAILED',
        errorMessage: 'E003: A user with email taken@x.io already exists in emailpassword loginMethod.',
      });
      // Nothing of the failed user was written.
      expect((await c.get('/user/id?userId=ext-2')).json.status).toBe('UNKNOWN_USER_ID_ERROR');
      expect((await c.get('/users/count')).json.count).toBe(3);
    } finally {
      await sb.stop();
    }
  });

  it('shouldThrowTenantDoesNotExistError: a user that no longer validates fails with the errors as a Java list', async () => {
    const sb = await startTestSandbox({ licenseKey: LICENSE, bulkImportIntervalSec: 1.5 });
    const c = client(sb);
    try {
      await c.put('/recipe/multitenancy/tenant/v2', { tenantId: 't1' });
      for (const role of ['role1', 'role2']) await c.put('/recipe/role', { role });
      const tenants = ['public', 't1'];
      const user = {
        userRoles: [
          { role: 'role1', tenantIds: tenants },
          { role: 'role2', tenantIds: tenants },
        ],
        loginMethods: [
          {
            tenantIds: tenants,
            recipeId: 'emailpassword',
            email: 'a@x.io',
            passwordHash: BCRYPT,
            hashingAlgorithm: 'bcrypt',
            isPrimary: true,
          },
          { tenantIds: tenants, recipeId: 'thirdparty', email: 'a@x.io', thirdPartyId: 'google', thirdPartyUserId: 'g-a' },
          { tenantIds: tenants, recipeId: 'passwordless', email: 'a@x.io' },
        ],
      };
      expect((await c.post('/bulk-import/users', { users: [user] })).status).toBe(200);
      // The tenant goes before the job's next round (the one at start-up had nothing to do).
      expect((await c.post('/recipe/multitenancy/tenant/remove', { tenantId: 't1' })).json.didExist).toBe(true);
      await waitFor(async () => (await waiting(sb.url)) === 0);
      const row = (await c.get('/bulk-import/users')).json.users[0];
      expect(row.status).toBe('FAILED');
      expect(row.errorMessage).toBe(
        '[Invalid tenantId: t1 for a user role., Invalid tenantId: t1 for a user role., Invalid tenantId: t1 for emailpassword recipe., Invalid tenantId: t1 for thirdparty recipe., Invalid tenantId: t1 for passwordless recipe.]',
      );
      expect((await c.get('/users/count')).json.count).toBe(0);
    } finally {
      await sb.stop();
    }
  });

  it('a SIGKILL in the middle of processing, then a restart: each staged user imported exactly once', async () => {
    const store = join(dir, 'kill.json');
    const total = 1500;
    // Plain-text passwords make the job hash (bcrypt, 4 rounds here), so processing takes long enough to interrupt.
    const users = Array.from({ length: total }, (_, i) => ({
      loginMethods: [{ recipeId: 'emailpassword', email: `k${i}@x.io`, plainTextPassword: `pw-${i}`, timeJoinedInMSSinceEpoch: 1_000 + i }],
    }));
    const first = await startTestSandbox({ store, bulkImportIntervalSec: 0.1, bulkImportBatchSize: 200 });
    expect((await call(first.url, 'POST', '/bulk-import/users', { users })).json.status).toBe('OK');
    await waitFor(async () => (await waiting(first.url)) < total - 100);
    first.kill('SIGKILL');
    const imported = await (async () => {
      const again = await startTestSandbox({ store, bulkImportIntervalSec: 0.1 });
      try {
        const before = (await call(again.url, 'GET', '/users/count')).json.count;
        await waitFor(async () => (await waiting(again.url)) === 0, 60_000);
        expect((await call(again.url, 'GET', '/bulk-import/users/count')).json.count).toBe(0);
        const signIn = await call(again.url, 'POST', '/recipe/signin', { email: 'k7@x.io', password: 'pw-7' });
        expect(signIn.json.status).toBe('OK');
        expect(signIn.json.user.timeJoined).toBe(1_007);
        return { before, after: (await call(again.url, 'GET', '/users/count')).json.count };
      } finally {
        await again.stop();
      }
    })();
    expect(imported.before).toBeGreaterThan(0);
    expect(imported.before).toBeLessThan(total);
    expect(imported.after).toBe(total);
  }, 90_000);

  it('switched off (interval 0, as BULK_MIGRATION_CRON_ENABLED=false, Main.java:99/279) it never runs; at 300 s (BulkImport.java:100) it waits after its start-up round', async () => {
    const user = (tag: string) => ({
      loginMethods: [{ recipeId: 'emailpassword', email: `${tag}@x.io`, passwordHash: BCRYPT, hashingAlgorithm: 'bcrypt' }],
    });
    const store = join(dir, 'off.json');
    // A user left staged by an earlier core: the reference's round at start-up would take it (initial wait 0).
    const earlier = await startTestSandbox({ store, bulkImportIntervalSec: 0 });
    expect((await call(earlier.url, 'POST', '/bulk-import/users', { users: [user('left')] })).json.status).toBe('OK');
    await earlier.stop();
    const [off, slow, control] = await Promise.all([
      startTestSandbox({ store, bulkImportIntervalSec: 0 }),
      startTestSandbox({ bulkImportIntervalSec: 300 }),
      startTestSandbox({ bulkImportIntervalSec: 0.05 }),
    ]);
    try {
      for (const sb of [off, slow, control]) {
        expect((await call(sb.url, 'POST', '/bulk-import/users', { users: [user('a'), user('b')] })).json.status).toBe('OK');
      }
      // The control's job takes its users; by then neither of the others has run a round since its start.
      await waitFor(async () => (await waiting(control.url)) === 0);
      await waitFor(async () => (await call(control.url, 'GET', '/users/count')).json.count === 2);
      expect((await call(off.url, 'GET', '/bulk-import/users/count?status=NEW')).json.count).toBe(3);
      expect((await call(slow.url, 'GET', '/bulk-import/users/count?status=NEW')).json.count).toBe(2);
      expect([(await call(off.url, 'GET', '/users/count')).json.count, (await call(slow.url, 'GET', '/users/count')).json.count]).toEqual([
        0, 0,
      ]);
    } finally {
      await Promise.all([off.stop(), slow.stop(), control.stop()]);
    }
  });

  it("with a claim grid (core --bulk-import-claim-ms), a claim's rows are gone a whole number of grid steps after it began, as the reference's job looks at its workers once a second (ProcessBulkImportUsers.java: while (!task.isDone()) Thread.sleep(1000))", async () => {
    const sb = await startTestSandbox({
      store: join(dir, 'grid.json'),
      bulkImportIntervalSec: 0.1,
      bulkImportBatchSize: 2,
      bulkImportClaimMs: 400,
    });
    try {
      const users = Array.from({ length: 6 }, (_, i) => ({
        loginMethods: [{ recipeId: 'emailpassword', email: `g${i}@x.io`, passwordHash: BCRYPT, hashingAlgorithm: 'bcrypt' }],
      }));
      const started = Date.now();
      expect((await call(sb.url, 'POST', '/bulk-import/users', { users })).json.status).toBe('OK');
      const seen = new Set<number>();
      await waitFor(async () => {
        const n = await waiting(sb.url);
        seen.add(n);
        return n === 0;
      });
      // Three claims of two: a claim's rows go as soon as it is done, the next claim waits for the grid (400 ms,
      // 800 ms): the list shrinks a claim at a time and stays so for most of a step.
      expect(Date.now() - started).toBeGreaterThanOrEqual(800);
      expect(seen.has(4) && seen.has(2)).toBe(true);
      expect((await call(sb.url, 'GET', '/users/count')).json.count).toBe(6);
    } finally {
      await sb.stop();
    }
  });
});
