// Conformance: POST /recipe/signinup/code and GET /user/id, ported from supertokens-core
// src/test/java/io/supertokens/test/passwordless/api/PasswordlessCreateCodeAPITest2_11.java and
// src/test/java/io/supertokens/test/accountlinking/api/GetUserByIdTest.java (each test names the method). GetUserByIdTest
// predates webauthn in the user object, so it is run at cdi-version 5.2.
import { describe, expect, it } from 'vitest';
import { LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE }, { 'cdi-version': '5.2' });

const code = (body: Record<string, unknown>) => api.post('/recipe/signinup/code', body);
const ONE_OF = errorText('Please provide exactly one of email, phoneNumber or deviceId');

describe('PasswordlessCreateCodeAPITest2_11', () => {
  it('testEmailWithUserInputCode / testResend / testResendWithAlreadyUsedUserInputCode / testResendWithNonExistantDeviceId', async () => {
    const made = (await code({ email: 'test@example.com', userInputCode: 'codeYcode' })).json;
    expect(made).toMatchObject({ status: 'OK', userInputCode: 'codeYcode' });
    const resend = (await code({ deviceId: made.deviceId })).json;
    expect(resend).toMatchObject({ status: 'OK', deviceId: made.deviceId, preAuthSessionId: made.preAuthSessionId });
    expect((await code({ deviceId: made.deviceId, userInputCode: 'codeYcode' })).json).toEqual({
      status: 'USER_INPUT_CODE_ALREADY_USED_ERROR',
    });
    expect((await code({ deviceId: 'JWlE/V+Uz8qgaTyFkzOI4FfRrU6fBH85ve2GunoPpz0=' })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('testAllIds / testEmailAndPhone / testEmailAndDeviceId / testPhoneAndDeviceId / testMalformedDeviceId', async () => {
    expect((await code({ email: 'test@example.com', phoneNumber: '+442071838750', deviceId: '+442071838750' })).text).toBe(ONE_OF);
    expect((await code({ email: 'test@example.com', phoneNumber: '+442071838750' })).text).toBe(ONE_OF);
    expect((await code({ email: 'test@example.com', deviceId: '+442071838750' })).text).toBe(ONE_OF);
    expect((await code({ phoneNumber: '+442071838750', deviceId: '+442071838750' })).text).toBe(ONE_OF);
    expect((await code({ deviceId: '+442071838750' })).text).toBe(errorText('Input encoding error in deviceId'));
  });
});

describe('GetUserByIdTest', () => {
  it('testJsonStructure: the primary user by any of its linked ids, eight fields, four login methods', async () => {
    const ep = (await api.post('/recipe/signup', { email: 'test@example.com', password: 'password1' })).json.user.id;
    const tp = (
      await api.post('/recipe/signinup', {
        thirdPartyId: 'google',
        thirdPartyUserId: 'userid1',
        email: { id: 'test@example.com', isVerified: false },
      })
    ).json.user.id;
    const consume = async (contact: Record<string, string>) => {
      const c = (await code({ ...contact, userInputCode: '123456' })).json;
      return (
        await api.post('/recipe/signinup/code/consume', {
          preAuthSessionId: c.preAuthSessionId,
          deviceId: c.deviceId,
          userInputCode: '123456',
        })
      ).json.user.id;
    };
    const pe = await consume({ email: 'test@example.com' });
    const pp = await consume({ phoneNumber: '+919876543210' });
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: ep });
    for (const id of [tp, pe, pp])
      expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: id, primaryUserId: ep })).json.status).toBe('OK');
    for (const id of [ep, tp, pe, pp]) {
      const user = (await api.get(`/user/id?userId=${id}`)).json.user;
      expect(Object.keys(user)).toHaveLength(8);
      expect(user).toMatchObject({ id: ep, isPrimaryUser: true, tenantIds: ['public'] });
      expect(user.thirdParty).toHaveLength(1);
      expect(user.loginMethods).toHaveLength(4);
      for (const lm of user.loginMethods) {
        expect(Object.keys(lm)).toHaveLength(lm.recipeId === 'thirdparty' ? 7 : 6);
        if (lm.email !== undefined) expect(lm.email).toBe('test@example.com');
        else expect(lm).toMatchObject({ phoneNumber: '+919876543210', verified: true });
      }
    }
  });
});
