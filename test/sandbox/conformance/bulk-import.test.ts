// Conformance: POST /bulk-import/import as the reference core's ImportUserTest (shouldReturn400Error,
// shouldReturn200Response, shouldImportUserWithOneLoginMethod, shouldImportBareMinimumUser,
// shouldImportFailWithoutAccountLinkingEnabled) and BulkImport.processUsersImportSteps (timeJoined per login
// method, links, external id, verification, TOTP, metadata, roles), against the real sandbox over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/spawn.js';
import { BCRYPT, LICENSE, client, startTestSandbox } from '../../support/sandbox.js';

const ARGON2 = '$argon2id$v=19$m=23298,t=5,p=12$+AlWgiuzC2vqlKrde9G0SG$PmpDeTU2e6ORbHwUMi7MOavS0M3sUJlc9rX/o+nnSxt';

/** BulkImportTestUtils.generateBulkImportUser(1): roles role1/role2 and tenant t1 on every part. */
function referenceUser(i: number) {
  return {
    externalUserId: `external-${i}`,
    userMetadata: { key1: 'value1', key2: { key3: 'value3' } },
    userRoles: [
      { role: 'role1', tenantIds: ['public', 't1'] },
      { role: 'role2', tenantIds: ['public', 't1'] },
    ],
    totpDevices: [{ secretKey: 'secretKey', period: 30, skew: 1, deviceName: 'deviceName' }],
    loginMethods: [
      {
        tenantIds: ['public', 't1'],
        isVerified: true,
        isPrimary: true,
        timeJoinedInMSSinceEpoch: 1_500_000_000_000 + i,
        recipeId: 'emailpassword',
        email: `user${i}@example.com`,
        passwordHash: BCRYPT,
        hashingAlgorithm: 'BCRYPT',
      },
      {
        tenantIds: ['public', 't1'],
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 1_400_000_000_000 + i,
        recipeId: 'thirdparty',
        email: `user${i}@example.com`,
        thirdPartyId: 'google',
        thirdPartyUserId: `google-${i}`,
      },
      {
        tenantIds: ['public', 't1'],
        isVerified: true,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 1_600_000_000_000 + i,
        recipeId: 'passwordless',
        email: `user${i}@example.com`,
      },
    ],
  };
}

describe('POST /bulk-import/import (ImportUserTest)', () => {
  let sb: RunningSandbox;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await startTestSandbox({ licenseKey: LICENSE });
    c = client(sb);
  });
  afterAll(() => sb.stop());

  it('shouldReturn400Error: unknown roles and tenants, every error of the user in the reference order', async () => {
    const a = await c.post('/bulk-import/import', referenceUser(0));
    expect(a.status).toBe(400);
    expect(JSON.parse(a.text)).toEqual({
      errors: [
        'Role role1 does not exist.',
        'Invalid tenantId: t1 for a user role.',
        'Role role2 does not exist.',
        'Invalid tenantId: t1 for a user role.',
        'Invalid tenantId: t1 for emailpassword recipe.',
        'Invalid tenantId: t1 for thirdparty recipe.',
        'Invalid tenantId: t1 for passwordless recipe.',
      ],
    });
  });

  it('shouldReturn200Response: the whole user, each login method with its own timeJoined', async () => {
    expect((await c.put('/recipe/multitenancy/tenant/v2', { tenantId: 't1' })).status).toBe(200);
    for (const role of ['role1', 'role2']) expect((await c.put('/recipe/role', { role })).status).toBe(200);
    const a = await c.post('/bulk-import/import', referenceUser(1));
    expect(a.status).toBe(200);
    expect(a.json.status).toBe('OK');
    const user = a.json.user;
    expect(user.id).toBe('external-1');
    expect(user.isPrimaryUser).toBe(true);
    expect(user.tenantIds).toEqual(['public', 't1']);
    expect(user.timeJoined).toBe(1_400_000_000_001);
    expect(
      user.loginMethods.map((m: { recipeId: string; timeJoined: number; verified: boolean }) => [m.recipeId, m.timeJoined, m.verified]),
    ).toEqual([
      ['thirdparty', 1_400_000_000_001, true],
      ['emailpassword', 1_500_000_000_001, true],
      ['passwordless', 1_600_000_000_001, true],
    ]);
    // The primary (emailpassword) login method carries the external id; GET /user/id shows the same.
    expect(user.loginMethods[1].recipeUserId).toBe('external-1');
    const got = await c.get('/user/id?userId=external-1');
    expect(got.json.user).toEqual(user);
    // Sign-in with the imported hash, metadata, roles in both tenants, the TOTP device.
    const signIn = await c.post('/recipe/signin', { email: 'user1@example.com', password: 'U*U' });
    expect(signIn.json.status).toBe('OK');
    expect(signIn.json.user.id).toBe('external-1');
    expect((await c.get('/recipe/user/metadata?userId=external-1')).json.metadata).toEqual({ key1: 'value1', key2: { key3: 'value3' } });
    expect((await c.get('/recipe/user/roles?userId=external-1')).json.roles).toEqual(['role1', 'role2']);
    expect((await c.get('/t1/recipe/user/roles?userId=external-1')).json.roles).toEqual(['role1', 'role2']);
    const devices = await c.get('/recipe/totp/device/list?userId=external-1');
    expect(devices.json.devices).toEqual([{ name: 'deviceName', period: 30, skew: 1, verified: true }]);
  });

  it('a second import of the same user is refused with the reference error and changes nothing', async () => {
    const a = await c.post('/bulk-import/import', { ...referenceUser(1), externalUserId: 'external-other' });
    expect(a.status).toBe(400);
    expect(JSON.parse(a.text)).toEqual({
      errors: ['E003: A user with email user1@example.com already exists in emailpassword loginMethod.'],
    });
    expect((await c.get('/user/id?userId=external-other')).json.status).toBe('UNKNOWN_USER_ID_ERROR');
  });

  it('shouldImportBareMinimumUser: one email-password method, no primary, nothing else', async () => {
    const a = await c.post('/bulk-import/import', {
      loginMethods: [{ recipeId: 'emailpassword', email: 'Bare@Testing.com ', passwordHash: '$2a', hashingAlgorithm: 'bcrypt' }],
    });
    expect(a.status).toBe(200);
    expect(a.json.user.isPrimaryUser).toBe(false);
    expect(a.json.user.emails).toEqual(['bare@testing.com']);
    expect(a.json.user.loginMethods[0].verified).toBe(false);
  });

  it('the E-coded import errors: an existing external id (E031), and nothing of the user is written', async () => {
    const before = (await c.get('/users/count')).json.count;
    const a = await c.post('/bulk-import/import', {
      externalUserId: 'external-1',
      loginMethods: [{ recipeId: 'emailpassword', email: 'e031@testing.com', passwordHash: ARGON2, hashingAlgorithm: 'argon2' }],
    });
    expect(a.status).toBe(400);
    expect(JSON.parse(a.text)).toEqual({ errors: ['E031: A user with externalId external-1 already exists'] });
    expect((await c.get('/users/count')).json.count).toBe(before);
  });
});

describe('POST /bulk-import/import: account info of other users (BulkImport.processUsersLoginMethods, createPrimaryUsersAndLinkAccounts)', () => {
  let sb: RunningSandbox;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await startTestSandbox({ licenseKey: LICENSE });
    c = client(sb);
    await c.put('/recipe/multitenancy/tenant/v2', { tenantId: 't1', firstFactors: ['emailpassword'] });
  });
  afterAll(() => sb.stop());

  const ep = (email: string, extra: Record<string, unknown> = {}) => ({
    recipeId: 'emailpassword',
    email,
    passwordHash: BCRYPT,
    hashingAlgorithm: 'bcrypt',
    ...extra,
  });

  it('the same email in a further tenant (E014)', async () => {
    const t1Only = await c.post('/t1/recipe/user/passwordhash/import', { email: 'dup@x.io', passwordHash: BCRYPT });
    expect(t1Only.json.status).toBe('OK');
    const a = await c.post('/bulk-import/import', { loginMethods: [ep('dup@x.io', { tenantIds: ['public', 't1'] })] });
    expect(a.status).toBe(400);
    const error: string = JSON.parse(a.text).errors[0];
    expect(error).toMatch(
      /^E014: We tried to add the userId [0-9a-f-]{36} to the tenantId t1 but another user with email dup@x.io already exists\.$/,
    );
  });

  it("a primary user whose account info another primary user holds (E022), and a link's (E027)", async () => {
    const first = await c.post('/bulk-import/import', { loginMethods: [ep('p@x.io', { isPrimary: true })] });
    expect(first.json.user.isPrimaryUser).toBe(true);
    const a = await c.post('/bulk-import/import', {
      loginMethods: [{ recipeId: 'passwordless', email: 'p@x.io', isPrimary: true }],
    });
    expect(a.status).toBe(400);
    expect(JSON.parse(a.text).errors[0]).toMatch(
      /^E022: We tried to create the primary user for the userId [0-9a-f-]{36} but the account info is already associated with another primary user\.$/,
    );
    const b = await c.post('/bulk-import/import', {
      loginMethods: [
        ep('q@x.io', { isPrimary: true }),
        { recipeId: 'thirdparty', email: 'p@x.io', thirdPartyId: 'google', thirdPartyUserId: 'g-p' },
      ],
    });
    expect(b.status).toBe(400);
    expect(JSON.parse(b.text).errors[0]).toMatch(
      /^E027: We tried to link the userId [0-9a-f-]{36} to the primary userId [0-9a-f-]{36} but the account info/,
    );
    // dup@x.io (in t1) and p@x.io: nothing of the refused users was written.
    expect((await c.get('/users/count?includeAllTenants=true')).json.count).toBe(2);
  });
});

describe('POST /bulk-import/import without a licence (ImportUserTest)', () => {
  let sb: RunningSandbox;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await startTestSandbox();
    c = client(sb);
  });
  afterAll(() => sb.stop());

  it('shouldImportFailWithoutAccountLinkingEnabled: a primary needs account linking (E019)', async () => {
    const a = await c.post('/bulk-import/import', {
      loginMethods: [
        { isPrimary: true, recipeId: 'emailpassword', email: 'test@sometestmail.com', passwordHash: '$2a', hashingAlgorithm: 'BCRYPT' },
      ],
    });
    expect(a.status).toBe(400);
    expect(a.text).toContain('E019: Account linking feature is not enabled for this app. Please contact support to enable it.');
  });

  it('several login methods, TOTP devices and other tenants are refused at validation', async () => {
    const u = referenceUser(2);
    const a = await c.post('/bulk-import/import', { ...u, userRoles: undefined });
    expect(a.status).toBe(400);
    expect(JSON.parse(a.text).errors).toEqual([
      'MFA must be enabled to import totp devices.',
      'Account linking must be enabled to import multiple loginMethods.',
      'Multitenancy must be enabled before importing users to a different tenant.',
      'Multitenancy must be enabled before importing users to a different tenant.',
      'Multitenancy must be enabled before importing users to a different tenant.',
    ]);
  });
});
