// Conformance: PUT /recipe/user with rid passwordless, ported from supertokens-core
// src/test/java/io/supertokens/test/passwordless/api/PasswordlessUserPutAPITest2_11.java (cdi-version 2.10 as there,
// so the body names `userId`; users are made through the passwordless API instead of the storage layer).
import { describe, expect, it } from 'vitest';
import { client, errorText, sandboxForFile } from '../../support/sandbox.js';

const { sb, api } = sandboxForFile({}, { 'cdi-version': '2.10', rid: 'passwordless' });

async function user(contact: { email?: string; phoneNumber?: string }): Promise<string> {
  const c = (await api.post('/recipe/signinup/code', contact)).json;
  const r = (
    await api.post('/recipe/signinup/code/consume', {
      preAuthSessionId: c.preAuthSessionId,
      deviceId: c.deviceId,
      userInputCode: c.userInputCode,
    })
  ).json;
  return r.user.id;
}
const put = (body: Record<string, unknown>) => api.put('/recipe/user', body);

describe('PasswordlessUserPutAPITest2_11', () => {
  it('testBadInput / testConflicts: no userId, an unknown user, an email or phone another user has', async () => {
    const u1 = await user({ email: 'put1@example.com' });
    await user({ email: 'put2@example.com' });
    await user({ phoneNumber: '+442071838750' });
    expect((await put({})).text).toBe(errorText("Field name 'userId' is invalid in JSON input"));
    expect((await put({ userId: 'notexists', email: 'notexists' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await put({ userId: u1, email: 'put2@example.com' })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await put({ userId: u1, phoneNumber: '+442071838750' })).json).toEqual({ status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' });
  });

  it('testEmailToPhone and testPhoneToEmail: a null clears one while the other is set', async () => {
    const a = await user({ email: 'swap@example.com' });
    expect((await put({ userId: a, email: null, phoneNumber: '+442071838760' })).json).toEqual({ status: 'OK' });
    const b = await user({ phoneNumber: '+442071838761' });
    expect((await put({ userId: b, phoneNumber: null, email: 'SWAPPED@EXAMPLE.COM' })).json).toEqual({ status: 'OK' });
    const got = await client(sb).get(`/user/id?userId=${b}`);
    expect(got.json.user.emails).toEqual(['swapped@example.com']);
    expect(got.json.user.phoneNumbers).toEqual([]);
  });

  it('clearEmailAndPhone, clearEmailOfEmailOnlyUser, clearPhoneNUmberOfPhoneNumberOnlyUser: 400', async () => {
    const both = await user({ email: 'both@example.com' });
    await put({ userId: both, phoneNumber: '+442071838770' });
    const text = errorText('You cannot clear both email and phone number of a user');
    expect((await put({ userId: both, email: null, phoneNumber: null })).text).toBe(text);
    expect((await put({ userId: await user({ email: 'only@example.com' }), email: null })).text).toBe(text);
    expect((await put({ userId: await user({ phoneNumber: '+91898989898' }), phoneNumber: null })).text).toBe(text);
  });
});
