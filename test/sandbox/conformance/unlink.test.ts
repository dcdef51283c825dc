// Conformance: POST /recipe/accountlinking/user/unlink, ported from supertokens-core v11.4.4
// src/test/java/io/supertokens/test/accountlinking/api/UnlinkAccountsAPITest.java (each test names the Java
// method), following UnlinkAccountAPI.java and AuthRecipe.unlinkAccounts (AuthRecipe.java:69-123). Also checked on a
// running reference core 11.4.4: a primary user alone answers wasLinked true; a primary with others is removed as a
// login method and its id stays the group's id; no licence is needed.
import { describe, expect, it } from 'vitest';
import { LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE }, { 'cdi-version': '5.0' });

let n = 0;
const signUp = async (): Promise<string> =>
  (await api.post('/recipe/signup', { email: `ul${++n}@example.com`, password: 'pass1234' })).json.user.id;
const unlink = (recipeUserId: string) => api.post('/recipe/accountlinking/user/unlink', { recipeUserId });
const user = async (id: string) => (await api.get(`/user/id?userId=${encodeURIComponent(id)}`)).json;
async function linked(primary: string, ...others: string[]) {
  await api.post('/recipe/accountlinking/user/primary', { recipeUserId: primary });
  for (const r of others) await api.post('/recipe/accountlinking/user/link', { recipeUserId: r, primaryUserId: primary });
}

describe('UnlinkAccountsAPITest', () => {
  it('unlinkAccountSuccess: the recipe user stands alone again, the primary keeps its own method', async () => {
    const [p, r] = [await signUp(), await signUp()];
    await linked(p, r);
    expect((await unlink(r)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await user(r)).user).toMatchObject({ id: r, isPrimaryUser: false, loginMethods: [{ recipeUserId: r }] });
    expect((await user(p)).user).toMatchObject({ id: p, isPrimaryUser: true, loginMethods: [{ recipeUserId: p }] });
  });

  it('unlinkAccountSuccessWithUserIdMapping: the recipe user named by its external id', async () => {
    const [p, r] = [await signUp(), await signUp()];
    await api.post('/recipe/userid/map', { superTokensUserId: r, externalUserId: 'ul-ext-r' });
    await linked(p, r);
    expect((await unlink('ul-ext-r')).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await user(r)).user).toMatchObject({ id: 'ul-ext-r', isPrimaryUser: false });
  });

  it('unlinkAccountWithoutPrimaryUserId: a user that is no primary and not linked', async () => {
    expect((await unlink(await signUp())).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: false });
  });

  it('unlinkAccountWithUnknownUserId: 400 Unknown user ID provided', async () => {
    const r = await unlink('not-a-user');
    expect([r.status, r.text]).toEqual([400, errorText('Unknown user ID provided')]);
  });

  it('a primary user alone: made non-primary, wasLinked true (AuthRecipe.java:91-95; seen on the reference)', async () => {
    const p = await signUp();
    await linked(p);
    expect((await unlink(p)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await user(p)).user.isPrimaryUser).toBe(false);
  });

  it('a primary with others: its login method is removed, its id (external once mapped) stays theirs (AuthRecipe.java:96-104)', async () => {
    const [p, r] = [await signUp(), await signUp()];
    await api.post('/recipe/userid/map', { superTokensUserId: p, externalUserId: 'ul-ext-p' });
    await linked(p, r);
    expect((await unlink('ul-ext-p')).json).toEqual({ status: 'OK', wasRecipeUserDeleted: true, wasLinked: true });
    const group = (await user(r)).user;
    expect(group).toMatchObject({ id: 'ul-ext-p', isPrimaryUser: true, loginMethods: [{ recipeUserId: r }] });
    expect((await user(p)).user).toEqual(group);
    // Unlinking the last one leaves the primary id with no login method: unknown, its mapping kept (as seen there).
    expect((await unlink(r)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect(await user(p)).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await api.post('/user/remove', { userId: p })).json).toEqual({ status: 'OK' });
    expect((await api.get(`/recipe/userid/map?userId=${p}`)).json).toMatchObject({ status: 'OK', externalUserId: 'ul-ext-p' });
  });

  it('a primary id kept without its login method: unlinking it changes nothing; others can still be linked to it (seen on the reference)', async () => {
    const [p, r, q] = [await signUp(), await signUp(), await signUp()];
    await linked(p, r);
    await api.post('/user/remove', { userId: p, removeAllLinkedAccounts: false });
    expect((await unlink(p)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await user(r)).user).toMatchObject({ id: p, isPrimaryUser: true, loginMethods: [{ recipeUserId: r }] });
    const check = (await api.get(`/recipe/accountlinking/user/primary/check?recipeUserId=${r}`)).json;
    expect(check).toMatchObject({ status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR', primaryUserId: p });
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: q, primaryUserId: p })).json.status).toBe('OK');
    // With two methods, unlinking the id "removes" its (absent) method; removing the id takes the whole group.
    expect((await unlink(p)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: true, wasLinked: true });
    expect((await user(q)).user.loginMethods).toHaveLength(2);
    expect((await api.post('/user/remove', { userId: p })).json).toEqual({ status: 'OK' });
    expect([await user(r), await user(q)]).toEqual([{ status: 'UNKNOWN_USER_ID_ERROR' }, { status: 'UNKNOWN_USER_ID_ERROR' }]);
  });

  it('needs no licence (UnlinkAccountAPI has no feature check)', async () => {
    const [p, r] = [await signUp(), await signUp()];
    await linked(p, r);
    await api.del('/ee/license');
    try {
      expect((await unlink(r)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    } finally {
      await api.put('/ee/license', { licenseKey: LICENSE });
    }
  });
});
