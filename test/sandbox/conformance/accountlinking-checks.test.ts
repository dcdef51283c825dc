// Conformance: the account-linking check endpoints, ported from supertokens-core
// src/test/java/io/supertokens/test/accountlinking/api/CanLinkAccountsAPITest.java and CanCreatePrimaryUserAPITest.java
// (each test names the Java method it follows). Also the repeated link the exactly-once rule relies on.
import { describe, expect, it } from 'vitest';
import { LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE });

const signUp = async (email: string): Promise<string> => (await api.post('/recipe/signup', { email, password: 'abcd1234' })).json.user.id;
const social = async (id: string, userId: string, email: string): Promise<string> =>
  (await api.post('/recipe/signinup', { thirdPartyId: id, thirdPartyUserId: userId, email: { id: email, isVerified: false } })).json.user
    .id;
const map = (superTokensUserId: string, externalUserId: string) => api.post('/recipe/userid/map', { superTokensUserId, externalUserId });
const primary = (recipeUserId: string) => api.post('/recipe/accountlinking/user/primary', { recipeUserId });
const linkCheck = (recipeUserId: string, primaryUserId: string) =>
  api.get(
    `/recipe/accountlinking/user/link/check?recipeUserId=${encodeURIComponent(recipeUserId)}&primaryUserId=${encodeURIComponent(primaryUserId)}`,
  );

describe('GET /recipe/accountlinking/user/link/check (CanLinkAccountsAPITest)', () => {
  it('canLinkReturnsTrueWithUserIdMapping: false before the link, true after, under external ids', async () => {
    const u1 = await signUp('clm1@example.com');
    await map(u1, 'r1');
    const u2 = await signUp('clm2@example.com');
    await map(u2, 'r2');
    await primary(u2);
    expect((await linkCheck('r1', 'r2')).json).toEqual({ status: 'OK', accountsAlreadyLinked: false });
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: u1, primaryUserId: u2 })).json.status).toBe('OK');
    expect((await linkCheck('r1', 'r2')).json).toEqual({ status: 'OK', accountsAlreadyLinked: true });
  });

  it('canLinkUserBadInput: missing fields and unknown ids answer 400 with the reference texts', async () => {
    expect((await api.get('/recipe/accountlinking/user/link/check')).text).toBe(
      errorText("Field name 'recipeUserId' is missing in GET request"),
    );
    expect((await api.get('/recipe/accountlinking/user/link/check?recipeUserId=random')).text).toBe(
      errorText("Field name 'primaryUserId' is missing in GET request"),
    );
    const u = await signUp('clbad1@example.com');
    await primary(u);
    const u2 = await signUp('clbad2@example.com');
    expect((await linkCheck(u2, 'random')).text).toBe(errorText('Unknown user ID provided'));
    expect((await linkCheck('random', u)).text).toBe(errorText('Unknown user ID provided'));
  });

  it('linkingUsersFailsCauseAnotherAccountWithSameEmailAlreadyAPrimaryUserWithUserIdMapping: the holder by its external id', async () => {
    const ep = await signUp('same@example.com');
    await map(ep, 'e1');
    await primary(ep);
    const g = await social('google', 'user-google', 'other@example.com');
    await map(g, 'e2');
    await primary(g);
    const fb = await social('fb', 'user-fb', 'same@example.com');
    await map(fb, 'e3');
    expect((await linkCheck('e3', 'e2')).json).toEqual({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: 'e1',
      description: "This user's email is already associated with another user ID",
    });
  });

  it('linkingUserFailsCauseAlreadyLinkedToAnotherAccount: the other primary, without its user object', async () => {
    const a = await signUp('lin1@example.com');
    const b = await signUp('lin2@example.com');
    await primary(a);
    await api.post('/recipe/accountlinking/user/link', { recipeUserId: b, primaryUserId: a });
    const c = await signUp('lin3@example.com');
    await primary(c);
    expect((await linkCheck(b, c)).json).toEqual({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: a,
      description: 'The input recipe user ID is already linked to another user ID',
    });
    // Not a primary user: INPUT_USER_IS_NOT_A_PRIMARY_USER.
    const d = await signUp('lin4@example.com');
    const e = await signUp('lin5@example.com');
    expect((await linkCheck(d, e)).json).toEqual({ status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' });
  });
});

describe('GET /recipe/accountlinking/user/primary/check (CanCreatePrimaryUserAPITest)', () => {
  it('createReturnsSucceeds / createPrimaryUserWithUserIdMapping: false, then true once primary, by either id', async () => {
    const u = await signUp('cpc1@example.com');
    await map(u, 'cp-ext');
    expect((await api.get(`/recipe/accountlinking/user/primary/check?recipeUserId=${u}`)).json).toEqual({
      status: 'OK',
      wasAlreadyAPrimaryUser: false,
    });
    await primary('cp-ext');
    expect((await api.get('/recipe/accountlinking/user/primary/check?recipeUserId=cp-ext')).json).toEqual({
      status: 'OK',
      wasAlreadyAPrimaryUser: true,
    });
  });

  it('createPrimaryUserBadInput: missing field and unknown id', async () => {
    expect((await api.get('/recipe/accountlinking/user/primary/check')).text).toBe(
      errorText("Field name 'recipeUserId' is missing in GET request"),
    );
    expect((await api.get('/recipe/accountlinking/user/primary/check?recipeUserId=random')).text).toBe(
      errorText('Unknown user ID provided'),
    );
  });

  it('a linked recipe user cannot be made primary: the primary by its external id', async () => {
    const p = await signUp('cpl1@example.com');
    await map(p, 'cpl-primary');
    await primary(p);
    const r = await signUp('cpl2@example.com');
    await api.post('/recipe/accountlinking/user/link', { recipeUserId: r, primaryUserId: p });
    expect((await api.get(`/recipe/accountlinking/user/primary/check?recipeUserId=${r}`)).json).toEqual({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
      primaryUserId: 'cpl-primary',
      description: 'This user ID is already linked to another user ID',
    });
  });
});

describe('a repeated link (LinkAccountsAPI, 12.0.5 and later)', () => {
  it('answers OK with accountsAlreadyLinked true and the primary user under its external id', async () => {
    const p = await signUp('rep1@example.com');
    await map(p, 'rep-primary');
    await primary(p);
    const r = await signUp('rep2@example.com');
    const first = await api.post('/recipe/accountlinking/user/link', { recipeUserId: r, primaryUserId: 'rep-primary' });
    expect(first.json).toMatchObject({ status: 'OK', accountsAlreadyLinked: false, user: { id: 'rep-primary' } });
    const again = await api.post('/recipe/accountlinking/user/link', { recipeUserId: r, primaryUserId: 'rep-primary' });
    expect(again.json).toMatchObject({ status: 'OK', accountsAlreadyLinked: true, user: { id: 'rep-primary' } });
  });
});

describe('PUT /recipe/user (emailpassword) on a linked user (EmailPassword.updateUsersEmailOrPassword)', () => {
  it('an email held by another primary user is EMAIL_CHANGE_NOT_ALLOWED_ERROR, before the duplicate check', async () => {
    const holder = await signUp('holder-ep@example.com');
    await primary(holder);
    const mine = await signUp('mine-ep@example.com');
    await primary(mine);
    const r = await api.put('/recipe/user', { recipeUserId: mine, email: 'holder-ep@example.com' });
    expect(r.json).toEqual({ status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'New email is associated with another primary user ID' });
    // Not linked: the email-password duplicate.
    const loose = await signUp('loose-ep@example.com');
    expect((await api.put('/recipe/user', { recipeUserId: loose, email: 'holder-ep@example.com' })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
  });
});

describe('POST /recipe/signinup/code/consume with a link code (Passwordless.checkCodeAndReturnDevice)', () => {
  it('a valid link code with another preAuthSessionId is a 400, not RESTART_FLOW_ERROR', async () => {
    const a = (await api.post('/recipe/signinup/code', { email: 'link-a@example.com' })).json;
    const b = (await api.post('/recipe/signinup/code', { email: 'link-b@example.com' })).json;
    const r = await api.post('/recipe/signinup/code/consume', { preAuthSessionId: b.preAuthSessionId, linkCode: a.linkCode });
    expect([r.status, r.text]).toEqual([400, errorText("preAuthSessionId and deviceId doesn't match")]);
    const ok = await api.post('/recipe/signinup/code/consume', { preAuthSessionId: a.preAuthSessionId, linkCode: a.linkCode });
    expect(ok.json).toMatchObject({ status: 'OK', createdNewUser: true });
  });
});
