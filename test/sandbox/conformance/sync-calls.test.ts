// Conformance: the calls `run --sync` adds (src/engine/sync/step-rules.ts), as the reference core 11.4.4 answers
// them; each answer below was also compared with a running reference (in-memory storage), scenario by scenario.
// - PUT /recipe/user (rid emailpassword): webserver/api/emailpassword/UserAPI.java:148-213,
//   EmailPassword.updateUsersEmailOrPassword (EmailPassword.java:641-723): normalised email, duplicate, unknown id.
// - POST /recipe/user/email/verify/remove: UnverifyEmailAPI.java:53-80 (always OK, on the user id as given).
// - POST /recipe/user/role/remove: RemoveUserRoleAPI.java:52-83 (didUserHaveRole, UNKNOWN_ROLE_ERROR).
// - POST /recipe/totp/device/remove: RemoveTotpDeviceAPI.java:38-84 (didDeviceExist true/false).
// - POST /recipe/signinup on an existing third-party user: ThirdParty.java:320 (email updated, createdNewUser false).
// - POST /user/remove removeAllLinkedAccounts false on a linked login: AuthRecipe.java:1249-1387 (only that login).
import { describe, expect, it } from 'vitest';
import { BCRYPT, LICENSE, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE }, { 'cdi-version': '5.4' });

let n = 0;
const importUser = async (): Promise<{ id: string; email: string }> => {
  const email = `sync${++n}@example.com`;
  const r = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT });
  return { id: r.json.user.id, email };
};
const putEmail = (recipeUserId: string, email: string) => api.put('/recipe/user', { recipeUserId, email }, { rid: 'emailpassword' });
const user = async (id: string) => (await api.get(`/user/id?userId=${encodeURIComponent(id)}`)).json;

describe('the calls a sync makes', () => {
  it('PUT /recipe/user changes an email (normalised), refuses a taken one and an unknown id (UserAPI.java:148-213)', async () => {
    const a = await importUser();
    const b = await importUser();
    expect((await putEmail(a.id, b.email)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await putEmail('no-such-user', 'x@example.com')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await putEmail(a.id, ' Moved@Example.COM ')).json).toEqual({ status: 'OK' });
    expect((await user(a.id)).user.loginMethods.map((m: { email: string }) => m.email)).toEqual(['moved@example.com']);
  });

  it('verify/remove answers OK for anyone and unverifies the (user id, email) given (UnverifyEmailAPI.java:53-80)', async () => {
    const a = await importUser();
    expect((await api.post('/recipe/user/email/verify/remove', { userId: 'nobody', email: 'z@example.com' })).json).toEqual({
      status: 'OK',
    });
    const token = (await api.post('/recipe/user/email/verify/token', { userId: a.id, email: a.email })).json.token;
    await api.post('/recipe/user/email/verify', { method: 'token', token });
    expect((await user(a.id)).user.loginMethods[0].verified).toBe(true);
    expect((await api.post('/recipe/user/email/verify/remove', { userId: a.id, email: a.email.toUpperCase() })).json).toEqual({
      status: 'OK',
    });
    expect((await user(a.id)).user.loginMethods[0].verified).toBe(false);
  });

  it('role/remove says whether the user had the role, or that the role is unknown (RemoveUserRoleAPI.java:52-83)', async () => {
    const a = await importUser();
    const remove = (role: string) => api.post('/recipe/user/role/remove', { userId: a.id, role });
    expect((await remove('no-such-role')).json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    await api.put('/recipe/role', { role: 'sync-role' });
    expect((await remove('sync-role')).json).toEqual({ status: 'OK', didUserHaveRole: false });
    await api.put('/recipe/user/role', { userId: a.id, role: 'sync-role' });
    expect((await remove('sync-role')).json).toEqual({ status: 'OK', didUserHaveRole: true });
  });

  it('device/remove says whether the device existed (RemoveTotpDeviceAPI.java:38-84)', async () => {
    const a = await importUser();
    const remove = () => api.post('/recipe/totp/device/remove', { userId: a.id, deviceName: 'd1' });
    expect((await remove()).json).toEqual({ status: 'OK', didDeviceExist: false });
    await api.post('/recipe/totp/device/import', { userId: a.id, deviceName: 'd1', secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1 });
    expect((await remove()).json).toEqual({ status: 'OK', didDeviceExist: true });
  });

  it('a third-party sign-in-up of an existing login updates its email, unverified unless said (ThirdParty.java:320)', async () => {
    const signInUp = (email: string, isVerified: boolean) =>
      api.post('/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: 'g-sync', email: { id: email, isVerified } });
    const first = (await signInUp('t1@example.com', true)).json;
    const again = (await signInUp('t2@example.com', false)).json;
    expect(again).toMatchObject({ status: 'OK', createdNewUser: false });
    const lm = (await user(first.recipeUserId)).user.loginMethods[0];
    expect([lm.email, lm.verified]).toEqual(['t2@example.com', false]);
  });

  it('removing a linked login alone keeps the user and its other logins (AuthRecipe.java:1249-1387)', async () => {
    const a = await importUser();
    const tp = (
      await api.post('/recipe/signinup', {
        thirdPartyId: 'github',
        thirdPartyUserId: 'gh-sync',
        email: { id: 'gh@example.com', isVerified: true },
      })
    ).json;
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: a.id });
    await api.post('/recipe/accountlinking/user/link', { recipeUserId: tp.recipeUserId, primaryUserId: a.id });
    expect((await api.post('/user/remove', { userId: tp.recipeUserId, removeAllLinkedAccounts: false })).json).toEqual({ status: 'OK' });
    expect((await user(a.id)).user.loginMethods.map((m: { recipeId: string }) => m.recipeId)).toEqual(['emailpassword']);
    expect((await user(tp.recipeUserId)).status).toBe('UNKNOWN_USER_ID_ERROR');
  });
});
