// Passwordless against a real sandbox: code formats, consume by input code and by link code, the attempt
// limit, code expiry (clock moved by the test hook), and PUT /recipe/user with rid passwordless.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { advanceClock, errorText, sandboxForFile } from '../support/sandbox.js';

const { sb, api } = sandboxForFile({ env: { AUTH_MIGRATE_SANDBOX_CODE_LIFETIME_MS: '60000' } });

const create = (body: Record<string, unknown>) => api.post('/recipe/signinup/code', body);
const consume = (body: Record<string, unknown>) => api.post('/recipe/signinup/code/consume', body);

describe('POST /recipe/signinup/code', () => {
  it('answers the §7 formats', async () => {
    const a = await create({ email: ' Pat@Example.com ' });
    expect(a.json.status).toBe('OK');
    const { deviceId, preAuthSessionId, userInputCode, linkCode, codeId, codeLifetime, timeCreated } = a.json;
    expect(deviceId).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(preAuthSessionId).toBe(createHash('sha256').update(Buffer.from(deviceId, 'base64')).digest('base64url'));
    expect(userInputCode).toMatch(/^\d{6}$/);
    expect(linkCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(codeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(codeLifetime).toBe(60000);
    expect(typeof timeCreated).toBe('number');
  });

  it('validation texts and statuses', async () => {
    expect((await create({})).text).toBe(errorText('Please provide exactly one of email, phoneNumber or deviceId'));
    expect((await create({ email: 'a@x.io', phoneNumber: '+14155550100' })).text).toBe(
      errorText('Please provide exactly one of email, phoneNumber or deviceId'),
    );
    expect((await create({ email: 'a@x.io', userInputCode: '' })).text).toBe(errorText('userInputCode cannot be an empty string.'));
    expect((await create({ deviceId: 'not base64!' })).text).toBe(errorText('Input encoding error in deviceId'));
    expect((await create({ deviceId: Buffer.alloc(32, 1).toString('base64') })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const first = await create({ email: 'dup@x.io', userInputCode: '111111' });
    expect((await create({ deviceId: first.json.deviceId, userInputCode: '111111' })).json).toEqual({
      status: 'USER_INPUT_CODE_ALREADY_USED_ERROR',
    });
    const second = await create({ deviceId: first.json.deviceId, userInputCode: '222222' });
    expect(second.json).toMatchObject({ status: 'OK', deviceId: first.json.deviceId, preAuthSessionId: first.json.preAuthSessionId });
  });
});

describe('POST /recipe/signinup/code/consume', () => {
  it('consumes with the input code: new user, verified email, consumedDevice; next time the same user', async () => {
    const c = await create({ email: 'pat@example.com' });
    const a = await consume({ preAuthSessionId: c.json.preAuthSessionId, deviceId: c.json.deviceId, userInputCode: c.json.userInputCode });
    expect(a.json.status).toBe('OK');
    expect(a.json.createdNewUser).toBe(true);
    expect(a.json.recipeUserId).toBe(a.json.user.id);
    expect(a.json.user.loginMethods).toEqual([
      {
        tenantIds: ['public'],
        recipeUserId: a.json.user.id,
        verified: true,
        timeJoined: a.json.user.timeJoined,
        recipeId: 'passwordless',
        email: 'pat@example.com',
      },
    ]);
    expect(a.json.consumedDevice).toEqual({
      preAuthSessionId: c.json.preAuthSessionId,
      failedCodeInputAttemptCount: 0,
      email: 'pat@example.com',
    });
    // The device is gone after success.
    expect(
      (await consume({ preAuthSessionId: c.json.preAuthSessionId, deviceId: c.json.deviceId, userInputCode: c.json.userInputCode })).json,
    ).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const again = await create({ email: 'pat@example.com' });
    const b = await consume({ preAuthSessionId: again.json.preAuthSessionId, linkCode: again.json.linkCode });
    expect(b.json).toMatchObject({ status: 'OK', createdNewUser: false, user: { id: a.json.user.id } });
  });

  it('the link code is HMAC-SHA256(deviceId bytes || salt, code): a forged one restarts the flow', async () => {
    const c = await create({ phoneNumber: '+1 415 555 0100', userInputCode: '424242' });
    const forged = createHmac('sha256', Buffer.from(c.json.deviceId, 'base64')).update('424242').digest('base64url');
    expect((await consume({ preAuthSessionId: c.json.preAuthSessionId, linkCode: forged })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const ok = await consume({ preAuthSessionId: c.json.preAuthSessionId, linkCode: c.json.linkCode });
    expect(ok.json.user).toMatchObject({ phoneNumbers: ['+14155550100'], emails: [] });
    // Phone-only passwordless login methods are always verified.
    expect(ok.json.user.loginMethods[0]).toMatchObject({ verified: true, phoneNumber: '+14155550100' });
  });

  it('400 texts', async () => {
    const c = await create({ email: 'v@x.io' });
    const { preAuthSessionId, deviceId, userInputCode, linkCode } = c.json;
    const exactly = errorText('Please provide exactly one of linkCode or deviceId+userInputCode');
    expect((await consume({ deviceId, userInputCode })).text).toBe(errorText("Field name 'preAuthSessionId' is invalid in JSON input"));
    expect((await consume({ preAuthSessionId })).text).toBe(exactly);
    expect((await consume({ preAuthSessionId, deviceId })).text).toBe(exactly);
    expect((await consume({ preAuthSessionId, linkCode, deviceId })).text).toBe(exactly);
    expect((await consume({ preAuthSessionId: 'x' + preAuthSessionId, deviceId, userInputCode })).text).toBe(
      errorText("preAuthSessionId and deviceId doesn't match"),
    );
    expect((await consume({ preAuthSessionId: preAuthSessionId + '=', deviceId, userInputCode })).json.status).toBe('OK');
    expect((await consume({ preAuthSessionId, deviceId: '!!', userInputCode: '1' })).text).toBe(
      errorText('Input encoding error in deviceId'),
    );
    expect((await consume({ preAuthSessionId, linkCode: 'a b' })).text).toBe(errorText('Input encoding error in linkCode'));
  });

  it('attempt limit: wrong tries 1-4 count up, the 5th restarts the flow and deletes the device', async () => {
    const c = await create({ email: 'limit@x.io', userInputCode: '000001' });
    const { preAuthSessionId, deviceId } = c.json;
    for (let n = 1; n <= 4; n++) {
      expect((await consume({ preAuthSessionId, deviceId, userInputCode: '999999' })).json).toEqual({
        status: 'INCORRECT_USER_INPUT_CODE_ERROR',
        failedCodeInputAttemptCount: n,
        maximumCodeInputAttempts: 5,
      });
    }
    expect((await consume({ preAuthSessionId, deviceId, userInputCode: '999999' })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    // Even the right code no longer works: the device is gone.
    expect((await consume({ preAuthSessionId, deviceId, userInputCode: '000001' })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('expiry: after the code lifetime the input code is EXPIRED and the link code restarts the flow', async () => {
    const c = await create({ email: 'late@x.io' });
    const { preAuthSessionId, deviceId, userInputCode, linkCode } = c.json;
    await advanceClock(sb, 60_001);
    expect((await consume({ preAuthSessionId, deviceId, userInputCode })).json).toEqual({
      status: 'EXPIRED_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 5,
    });
    expect((await consume({ preAuthSessionId, linkCode })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    // A new code on the same device works again, and carries the failure count.
    const fresh = await create({ deviceId });
    const ok = await consume({ preAuthSessionId, deviceId, userInputCode: fresh.json.userInputCode });
    expect(ok.json).toMatchObject({ status: 'OK', consumedDevice: { failedCodeInputAttemptCount: 1 } });
  });
});

describe('PUT /recipe/user with rid passwordless', () => {
  async function newUser(email: string): Promise<string> {
    const c = await create({ email });
    return (await consume({ preAuthSessionId: c.json.preAuthSessionId, linkCode: c.json.linkCode })).json.user.id;
  }
  const rid = { rid: 'passwordless' };

  it('updates, clears, refuses duplicates and clearing both', async () => {
    const id = await newUser('p1@x.io');
    await newUser('p2@x.io');
    expect((await api.put('/recipe/user', { recipeUserId: id, phoneNumber: '+442071838750' }, rid)).json).toEqual({ status: 'OK' });
    expect((await api.put('/recipe/user', { recipeUserId: id, email: 'P2@x.io' }, rid)).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    expect((await api.put('/recipe/user', { recipeUserId: id, email: null }, rid)).json).toEqual({ status: 'OK' });
    const u = (await api.get(`/user/id?userId=${id}`)).json.user;
    expect(u).toMatchObject({ emails: [], phoneNumbers: ['+442071838750'] });
    expect((await api.put('/recipe/user', { recipeUserId: id, phoneNumber: null }, rid)).text).toBe(
      errorText('You cannot clear both email and phone number of a user'),
    );
    expect((await api.put('/recipe/user', { recipeUserId: 'nope', email: 'x@x.io' }, rid)).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
  });

  it('without rid the same call is an email-password update', async () => {
    const id = await newUser('p3@x.io');
    // Email-password rules: the passwordless user is not an email-password user.
    expect((await api.put('/recipe/user', { recipeUserId: id, email: 'p4@x.io' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await api.put('/recipe/user', { recipeUserId: id })).status).toBe(400);
  });
});
