// Conformance: POST /user/remove, ported from supertokens-core v11.4.4
// src/test/java/io/supertokens/test/accountlinking/api/DeleteUserTest.java and
// src/test/java/io/supertokens/test/authRecipe/DeleteUserAPIWithUserIdMappingTest.java (each test names the Java
// method), following DeleteUserAPI.java:51-79 and AuthRecipe.deleteUserHelper (AuthRecipe.java:1262-1387). The
// answers below were also checked on a running reference core 11.4.4 (in-memory storage), notably: an external id
// with a mapping IS resolved and its user removed (StorageLayer.findStorageAndUserIdMappingForUser, ANY); an id that
// is neither a user nor mapped answers OK and removes nothing.
import { describe, expect, it } from 'vitest';
import { LICENSE, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE }, { 'cdi-version': '5.0' });

let n = 0;
const signUp = async (): Promise<string> =>
  (await api.post('/recipe/signup', { email: `rm${++n}@example.com`, password: 'pass1234' })).json.user.id;
const remove = (userId: string, removeAllLinkedAccounts?: boolean) =>
  api.post('/user/remove', removeAllLinkedAccounts === undefined ? { userId } : { userId, removeAllLinkedAccounts });
const user = async (id: string) => (await api.get(`/user/id?userId=${encodeURIComponent(id)}`)).json;
const map = (st: string, ext: string) => api.post('/recipe/userid/map', { superTokensUserId: st, externalUserId: ext });
const mappingOf = async (st: string) => (await api.get(`/recipe/userid/map?userId=${st}&userIdType=SUPERTOKENS`)).json;
const metadata = async (id: string) => (await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(id)}`)).json.metadata;
const setMetadata = (id: string) => api.put('/recipe/user/metadata', { userId: id, metadataUpdate: { k1: 'v1' } });
async function linked(primary: string, ...others: string[]) {
  await api.post('/recipe/accountlinking/user/primary', { recipeUserId: primary });
  for (const r of others)
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: r, primaryUserId: primary })).json.status).toBe('OK');
}

describe('DeleteUserAPI: which id it removes', () => {
  it('an id that is no user and no mapping: 200 OK, nothing removed (DeleteUserAPI.java:72-74)', async () => {
    const st = await signUp();
    expect((await remove('not-a-user-id')).json).toEqual({ status: 'OK' });
    expect((await user(st)).status).toBe('OK');
  });

  it('an external id with a mapping is resolved (ANY) and its user removed, with the mapping (seen on the reference)', async () => {
    const st = await signUp();
    await map(st, 'ext-resolved');
    expect((await remove('ext-resolved')).json).toEqual({ status: 'OK' });
    expect(await user(st)).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect(await mappingOf(st)).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
  });

  it('an external id whose mapping was removed first names nobody any more: OK, the user stays (seen on the reference)', async () => {
    const st = await signUp();
    await map(st, 'ext-unmapped');
    expect((await api.post('/recipe/userid/map/remove', { userId: 'ext-unmapped', userIdType: 'EXTERNAL' })).json.didMappingExist).toBe(
      true,
    );
    expect((await remove('ext-unmapped')).json).toEqual({ status: 'OK' });
    expect((await user(st)).user.id).toBe(st);
  });

  it('createAUserMapTheirIdCreateMetadataWithExternalIdAndDelete: by the supertokens id, metadata under the external id goes too', async () => {
    const st = await signUp();
    await map(st, 'externalId-md');
    await setMetadata('externalId-md');
    expect((await remove(st)).json).toEqual({ status: 'OK' });
    expect(await user(st)).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect(await metadata('externalId-md')).toEqual({});
    expect(await mappingOf(st)).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
  });
});

describe('DeleteUserTest (account linking)', () => {
  it('deleteLinkedUserWithoutRemovingAllUsers: only that login method goes', async () => {
    const [r1, r2] = [await signUp(), await signUp()];
    await linked(r2, r1);
    await remove(r1, false);
    expect(await user(r1)).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await user(r2)).user).toMatchObject({ id: r2, isPrimaryUser: true, loginMethods: [{ recipeUserId: r2 }] });
  });

  it('deleteLinkedPrimaryUserWithoutRemovingAllUsers: the primary id stays the group id, without its login method (AuthRecipe.java:1359)', async () => {
    const [r1, r2] = [await signUp(), await signUp()];
    await linked(r2, r1);
    await remove(r2, false);
    const byP = (await user(r2)).user;
    expect(byP).toMatchObject({ id: r2, isPrimaryUser: true });
    expect(byP.loginMethods.map((m: { recipeUserId: string }) => m.recipeUserId)).toEqual([r1]);
    expect((await user(r1)).user).toEqual(byP);
    // The removed method's account info is gone; the group is found through the others'.
    const email = byP.emails[0] as string;
    expect((await api.get(`/users/by-accountinfo?email=${email}&doUnionOfAccountInfo=false`)).json.users).toEqual([byP]);
    expect((await api.get('/users?limit=500')).json.users.filter((u: { id: string }) => u.id === r2)).toEqual([byP]);
  });

  it('deleteLinkedPrimaryUserRemovingAllUsers and ...2: by either id, the whole group goes', async () => {
    for (const which of [0, 1]) {
      const [r1, r2] = [await signUp(), await signUp()];
      await linked(r2, r1);
      await remove(which === 0 ? r2 : r1);
      expect([await user(r1), await user(r2)]).toEqual([{ status: 'UNKNOWN_USER_ID_ERROR' }, { status: 'UNKNOWN_USER_ID_ERROR' }]);
    }
  });

  it('deleteUserTestWithUserIdMapping1: a linked recipe user goes with its external id, mapping and metadata; the primary keeps its own', async () => {
    const [r1, r2] = [await signUp(), await signUp()];
    await map(r1, 'e1-m1');
    await setMetadata('e1-m1');
    await map(r2, 'e2-m1');
    await setMetadata('e2-m1');
    await linked(r2, r1);
    await remove(r1, false);
    expect(await user(r1)).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await user(r2)).user.id).toBe('e2-m1');
    expect([await metadata('e1-m1'), await metadata('e2-m1')]).toEqual([{}, { k1: 'v1' }]);
    expect([(await mappingOf(r1)).status, (await mappingOf(r2)).status]).toEqual(['UNKNOWN_MAPPING_ERROR', 'OK']);
  });

  it('deleteUserTestWithUserIdMapping3: the primary first (kept as the group id with its metadata), then the others; the last takes the primary with it', async () => {
    const [r1, r2, r3] = [await signUp(), await signUp(), await signUp()];
    for (const [r, e] of [
      [r1, 'e1-m3'],
      [r2, 'e2-m3'],
      [r3, 'e3-m3'],
    ] as const) {
      await map(r, e);
      await setMetadata(e);
    }
    await linked(r2, r1, r3);
    await remove(r2, false);
    expect((await user(r1)).user).toMatchObject({ id: 'e2-m3', isPrimaryUser: true });
    expect((await user(r1)).user.loginMethods).toHaveLength(2);
    expect([await metadata('e2-m3'), (await mappingOf(r2)).status]).toEqual([{ k1: 'v1' }, 'OK']);
    await remove(r1, false);
    expect([await metadata('e1-m3'), (await mappingOf(r1)).status]).toEqual([{}, 'UNKNOWN_MAPPING_ERROR']);
    expect((await user(r3)).user).toMatchObject({ id: 'e2-m3', loginMethods: [{ recipeUserId: 'e3-m3' }] });
    await remove(r3, false);
    expect([await user(r3), await user(r2), await user('e2-m3')]).toEqual([
      { status: 'UNKNOWN_USER_ID_ERROR' },
      { status: 'UNKNOWN_USER_ID_ERROR' },
      { status: 'UNKNOWN_USER_ID_ERROR' },
    ]);
    expect([await metadata('e2-m3'), await metadata('e3-m3'), (await mappingOf(r2)).status]).toEqual([{}, {}, 'UNKNOWN_MAPPING_ERROR']);
  });

  it('a recipe user named by its external id, removeAllLinkedAccounts false: only it goes (seen on the reference)', async () => {
    const [p, r] = [await signUp(), await signUp()];
    await map(r, 'ext-linked-r');
    await linked(p, r);
    expect((await user('ext-linked-r')).user.id).toBe(p);
    await remove('ext-linked-r', false);
    expect((await user(p)).user.loginMethods.map((m: { recipeUserId: string }) => m.recipeUserId)).toEqual([p]);
    expect(await mappingOf(r)).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
  });
});
