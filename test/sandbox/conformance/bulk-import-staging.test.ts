// Conformance: staging users for the bulk-import job, as the reference core's AddBulkImportUsersTest
// (shouldThrow400Error's cases, with the texts of the current BulkImportUserUtils), GetBulkImportUsersTest
// (shouldReturn400Error, shouldReturn200Response), CountBulkImportUsersTest and DeleteBulkImportUsersTest,
// against the real sandbox over HTTP. The job's interval is an hour here, so nothing staged is processed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/spawn.js';
import { BCRYPT, LICENSE, client, startTestSandbox } from '../../support/sandbox.js';

const GENERIC = 'Data has missing or invalid fields. Please check the users field for more details.';

const pless = (email: string) => ({ loginMethods: [{ recipeId: 'passwordless', email }] });

describe('POST /bulk-import/users (AddBulkImportUsersTest.shouldThrow400Error)', () => {
  let sb: RunningSandbox;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await startTestSandbox({ licenseKey: LICENSE, bulkImportIntervalSec: 3600 });
    c = client(sb);
    await c.put('/recipe/role', { role: 'role1' });
  });
  afterAll(() => sb.stop());

  /** The 400 text of a refused batch: per-index errors. */
  async function refused(users: unknown): Promise<Array<{ index: number; errors: string[] }>> {
    const a = await c.post('/bulk-import/users', { users });
    expect(a.status).toBe(400);
    expect(a.type.startsWith('text/html')).toBe(true);
    const body = JSON.parse(a.text);
    expect(body.error).toBe(GENERIC);
    return body.users;
  }

  it('users must be an array', async () => {
    for (const body of [{}, { users: 'string' }]) {
      const a = await c.post('/bulk-import/users', body);
      expect([a.status, a.text]).toEqual([400, "Field name 'users' is invalid in JSON input\n"]);
    }
  });

  it('loginMethods: required, an array of objects, not empty', async () => {
    expect(await refused([{}])).toEqual([{ index: 0, errors: ['loginMethods is required.'] }]);
    expect(await refused([{ loginMethods: 'string' }])).toEqual([
      { index: 0, errors: ['loginMethods should be of type array of object.'] },
    ]);
    expect(await refused([{ loginMethods: [] }])).toEqual([{ index: 0, errors: ['At least one loginMethod is required.'] }]);
  });

  it('fields outside loginMethods: types, unique external ids, existing roles', async () => {
    expect(await refused([{ externalUserId: [], userMetaData: [], userRoles: {}, totpDevices: {} }])).toEqual([
      {
        index: 0,
        errors: [
          'externalUserId should be of type string.',
          'userRoles should be of type array of object.',
          'totpDevices should be of type array of object.',
          'loginMethods is required.',
        ],
      },
    ]);
    expect(await refused([{ externalUserId: 'id1' }, { externalUserId: 'id1' }])).toEqual([
      { index: 0, errors: ['loginMethods is required.'] },
      { index: 1, errors: ['loginMethods is required.', 'externalUserId id1 is not unique. It is already used by another user.'] },
    ]);
    expect(await refused([{ totpDevices: [{ secret: 'secret' }] }])).toEqual([
      { index: 0, errors: ['secretKey is required for a totp device.', 'loginMethods is required.'] },
    ]);
    expect(await refused([{ userRoles: [{ role: 'role1' }] }])).toEqual([
      { index: 0, errors: ['tenantIds is required for a user role.', 'loginMethods is required.'] },
    ]);
    expect(await refused([{ userRoles: [{ role: 'role5', tenantIds: ['public'] }] }])).toEqual([
      { index: 0, errors: ['Role role5 does not exist.', 'loginMethods is required.'] },
    ]);
  });

  it('fields of a login method and of each recipe', async () => {
    const lm = (m: Record<string, unknown>) => [{ loginMethods: [m] }];
    expect(await refused(lm({ recipeId: [], tenantIds: {}, isPrimary: [], isVerified: [], timeJoinedInMSSinceEpoch: [] }))).toEqual([
      {
        index: 0,
        errors: [
          'recipeId should be of type string for a loginMethod.',
          'tenantIds should be of type array of string for a loginMethod.',
          'isVerified should be of type boolean for a loginMethod.',
          'isPrimary should be of type boolean for a loginMethod.',
          'timeJoinedInMSSinceEpoch should be of type integer for a loginMethod',
        ],
      },
    ]);
    expect((await refused(lm({ recipeId: 'invalid_recipe_id' })))[0]!.errors).toEqual([
      'Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!',
    ]);
    expect((await refused(lm({ recipeId: 'emailpassword' })))[0]!.errors).toEqual([
      'email is required for an emailpassword recipe.',
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
    ]);
    expect(
      (
        await refused(
          lm({ recipeId: 'emailpassword', email: 'johndoe@gmail.com', passwordHash: '$2a', hashingAlgorithm: 'invalid_algorithm' }),
        )
      )[0]!.errors,
    ).toEqual(['Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!']);
    expect(
      (await refused(lm({ recipeId: 'emailpassword', email: 'johndoe@gmail.com', passwordHash: 'nope', hashingAlgorithm: 'bcrypt' })))[0]!
        .errors,
    ).toEqual(['Password hash is in invalid BCrypt format']);
    expect((await refused(lm({ recipeId: 'thirdparty', email: [], thirdPartyId: [], thirdPartyUserId: [] })))[0]!.errors).toEqual([
      'email should be of type string for a thirdparty recipe.',
      'thirdPartyId should be of type string for a thirdparty recipe.',
      'thirdPartyUserId should be of type string for a thirdparty recipe.',
    ]);
    expect((await refused(lm({ recipeId: 'passwordless', email: [], phoneNumber: [] })))[0]!.errors).toEqual([
      'email should be of type string for a passwordless recipe.',
      'phoneNumber should be of type string for a passwordless recipe.',
      'Either email or phoneNumber is required for a passwordless recipe.',
    ]);
    expect(
      (await refused(lm({ recipeId: 'passwordless', email: 'a@b.c', timeJoinedInMSSinceEpoch: Date.now() + 3_600_000 })))[0]!.errors,
    ).toEqual(['timeJoined cannot be in future for a loginMethod.']);
    expect((await refused(lm({ tenantIds: ['invalid'], recipeId: 'passwordless', email: 'johndoe@gmail.com' })))[0]!.errors).toEqual([
      'Invalid tenantId: invalid for passwordless recipe.',
    ]);
  });

  it('no two login methods can be primary; one invalid user refuses the whole batch', async () => {
    const two = {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'johndoe@gmail.com', passwordHash: BCRYPT, hashingAlgorithm: 'bcrypt', isPrimary: true },
        { recipeId: 'passwordless', email: 'johndoe@gmail.com', isPrimary: true },
      ],
    };
    expect(await refused([pless('ok@x.io'), two])).toEqual([{ index: 1, errors: ['No two loginMethods can have isPrimary as true.'] }]);
    expect((await c.get('/bulk-import/users/count')).json).toEqual({ status: 'OK', count: 0 });
  });

  it('at most 10,000 users at a time; an empty list is OK', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => pless(`m${i}@x.io`));
    const a = await c.post('/bulk-import/users', { users: many });
    expect([a.status, a.text]).toEqual([400, '{"error":"You can only add 10000 users at a time."}\n']);
    expect((await c.post('/bulk-import/users', { users: [] })).json).toEqual({ status: 'OK' });
  });
});

describe('GET /bulk-import/users, /count, POST /bulk-import/users/remove (GetBulkImportUsersTest, CountBulkImportUsersTest, DeleteBulkImportUsersTest)', () => {
  let sb: RunningSandbox;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await startTestSandbox({ bulkImportIntervalSec: 3600 });
    c = client(sb);
  });
  afterAll(() => sb.stop());

  it('shouldReturn400Error: status, limit and token', async () => {
    const cases: Array<[string, string]> = [
      ['status=INVALID_STATUS', 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!'],
      ['limit=0', 'limit must a positive integer with min value 1'],
      ['limit=501', 'Max limit allowed is 500'],
      ['paginationToken=invalid_token', 'invalid pagination token'],
    ];
    for (const [q, text] of cases) expect(await c.get(`/bulk-import/users?${q}`)).toMatchObject({ status: 400, text: `${text}\n` });
    expect(await c.get('/bulk-import/users/count?status=DONE')).toMatchObject({
      status: 400,
      text: 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!\n',
    });
  });

  it('shouldReturn200Response: the staged row as the reference shows it, pages newest first', async () => {
    const staged = await c.post('/bulk-import/users', { users: [pless('JohnDoe@gmail.com')] });
    const a = await c.get('/bulk-import/users');
    expect(a.json.status).toBe('OK');
    expect(a.json.users).toHaveLength(1);
    const row = a.json.users[0];
    const lm = row.loginMethods[0];
    expect(row).toEqual({
      id: lm.superTokensUserId,
      loginMethods: [
        {
          tenantIds: ['public'],
          isVerified: false,
          isPrimary: false,
          timeJoinedInMSSinceEpoch: lm.timeJoinedInMSSinceEpoch,
          recipeId: 'passwordless',
          email: 'johndoe@gmail.com',
          superTokensUserId: lm.superTokensUserId,
        },
      ],
      status: 'NEW',
      createdAt: row.createdAt,
      updatedAt: row.createdAt,
    });
    expect(a.json.nextPaginationToken).toBeUndefined();
    // The OK answer lists what was staged (BulkImportUser.toResponseJson), ids included.
    expect(staged.json).toEqual({
      status: 'OK',
      users: [
        { userId: row.id, loginMethods: [{ recipeId: 'passwordless', userId: row.id, tenants: ['public'], email: 'johndoe@gmail.com' }] },
      ],
    });

    await c.post('/bulk-import/users', { users: Array.from({ length: 6 }, (_, i) => pless(`p${i}@x.io`)) });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await c.get(`/bulk-import/users?limit=3&status=NEW${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`);
      seen.push(...page.json.users.map((u: { id: string }) => u.id));
      token = page.json.nextPaginationToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    // createdAt DESC: the second request's users come first.
    expect(seen[6]).toBe(row.id);
    expect((await c.get('/bulk-import/users/count')).json).toEqual({ status: 'OK', count: 7 });
    expect((await c.get('/bulk-import/users/count?status=FAILED')).json).toEqual({ status: 'OK', count: 0 });
  });

  it('remove: deletedIds and invalidIds, the limits and texts', async () => {
    expect(await c.post('/bulk-import/users/remove', {})).toMatchObject({
      status: 400,
      text: "Field name 'ids' is invalid in JSON input\n",
    });
    expect((await c.post('/bulk-import/users/remove', { ids: [] })).json).toEqual({ deletedIds: [], invalidIds: [] });
    expect(await c.post('/bulk-import/users/remove', { ids: [''] })).toMatchObject({
      status: 400,
      text: "Field name 'ids' cannot contain an empty string\n",
    });
    const tooMany = Array.from({ length: 501 }, (_, i) => `id${i}`);
    expect(await c.post('/bulk-import/users/remove', { ids: tooMany })).toMatchObject({
      status: 400,
      text: "Field name 'ids' cannot contain more than 500 elements\n",
    });
    const ids = (await c.get('/bulk-import/users?limit=2')).json.users.map((u: { id: string }) => u.id);
    const a = await c.post('/bulk-import/users/remove', { ids: [...ids, 'doesNotExist'] });
    expect(a.json).toEqual({ deletedIds: ids, invalidIds: ['doesNotExist'] });
    expect((await c.get('/bulk-import/users/count')).json.count).toBe(5);
  });
});
