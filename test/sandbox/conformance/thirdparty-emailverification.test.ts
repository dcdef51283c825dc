// Conformance: POST /recipe/signinup (third party) and the email verification token and consume, ported from
// supertokens-core src/test/java/io/supertokens/test/thirdparty/api/ThirdPartySignInUpAPITest4_0.java and
// src/test/java/io/supertokens/test/emailverification/api/VerifyEmailAPITest2_7.java (each test names the method).
import { describe, expect, it } from 'vitest';
import { LICENSE, call, errorText, sandboxForFile } from '../../support/sandbox.js';

const { sb, api } = sandboxForFile({ licenseKey: LICENSE }, { 'cdi-version': '4.0' });

describe('ThirdPartySignInUpAPITest4_0', () => {
  it('testGoodInput: a new user with the 4.0 user object; the login method has exactly seven fields', async () => {
    const r = (
      await api.post('/recipe/signinup', {
        thirdPartyId: 'google',
        thirdPartyUserId: 'google-user',
        email: { id: 'test@example.com', isVerified: false },
      })
    ).json;
    expect(r).toMatchObject({ status: 'OK', createdNewUser: true });
    expect(r.user).toMatchObject({
      isPrimaryUser: false,
      emails: ['test@example.com'],
      phoneNumbers: [],
      thirdParty: [{ id: 'google', userId: 'google-user' }],
    });
    expect(r.user.loginMethods).toHaveLength(1);
    const lm = r.user.loginMethods[0];
    expect(lm).toMatchObject({
      verified: false,
      recipeId: 'thirdparty',
      email: 'test@example.com',
      thirdParty: { id: 'google', userId: 'google-user' },
    });
    expect(Object.keys(lm).sort()).toEqual(['email', 'recipeId', 'recipeUserId', 'tenantIds', 'thirdParty', 'timeJoined', 'verified']);
  });

  it('testNotAllowedUpdateOfEmail: an email held by another primary user cannot be taken by a primary third-party user', async () => {
    const ep = (await api.post('/recipe/signup', { email: 'someemail1@gmail.com', password: 'somePass123' })).json.user.id;
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: ep });
    const g = (
      await api.post('/recipe/signinup', {
        thirdPartyId: 'google',
        thirdPartyUserId: 'user',
        email: { id: 'someemail@gmail.com', isVerified: false },
      })
    ).json.user.id;
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: g });
    const r = await api.post('/recipe/signinup', {
      thirdPartyId: 'google',
      thirdPartyUserId: 'user',
      email: { id: 'someemail1@gmail.com', isVerified: false },
    });
    expect(r.json).toEqual({ status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'Email already associated with another primary user.' });
  });
});

describe('VerifyEmailAPITest2_7', () => {
  it('testBadInput: no body, no method, a token that is not a string', async () => {
    const noBody = await call(sb.url, 'POST', '/recipe/user/email/verify', undefined, { 'cdi-version': '2.7' });
    expect([noBody.status, noBody.text]).toEqual([400, errorText('Invalid Json Input')]);
    expect((await api.post('/recipe/user/email/verify', {})).text).toBe(errorText("Field name 'method' is invalid in JSON input"));
    expect((await api.post('/recipe/user/email/verify', { method: 'token', token: 12345 })).text).toBe(
      errorText("Field name 'token' is invalid in JSON input"),
    );
  });

  it('testGoodInput: a token for randoM@gmail.com verifies random@gmail.com for that user', async () => {
    const userId = (await api.post('/recipe/signup', { email: 'random@gmail.com', password: 'validPass123' })).json.user.id;
    const t = (await api.post('/recipe/user/email/verify/token', { userId, email: 'randoM@gmail.com' })).json;
    expect(Object.keys(t).sort()).toEqual(['status', 'token']);
    expect((await api.post('/recipe/user/email/verify', { method: 'token', token: t.token })).json).toEqual({
      status: 'OK',
      userId,
      email: 'random@gmail.com',
    });
  });

  it('testAllTypesOfOutput: an unsupported method is a 400; an unknown token EMAIL_VERIFICATION_INVALID_TOKEN_ERROR alone', async () => {
    expect((await api.post('/recipe/user/email/verify', { method: 'invalidMethod', token: 'randomToken' })).text).toBe(
      errorText('Unsupported method for email verification'),
    );
    expect((await api.post('/recipe/user/email/verify', { method: 'token', token: 'invalidToken' })).json).toEqual({
      status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR',
    });
  });
});
