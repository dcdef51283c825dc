// Conformance: POST /recipe/signinup/code/consume, ported from supertokens-core
// src/test/java/io/supertokens/test/passwordless/api/PasswordlessConsumeCodeAPITest5_0.java (each test names the
// Java method). Expiry is reached with the sandbox's clock hook instead of the Java tests' sleep.
import { describe, expect, it } from 'vitest';
import { advanceClock, errorText, sandboxForFile } from '../../support/sandbox.js';

const { sb, api } = sandboxForFile({ env: { AUTH_MIGRATE_SANDBOX_TEST_HOOKS: '1' } }, { 'cdi-version': '5.0' });

const create = async (email: string) => (await api.post('/recipe/signinup/code', { email })).json;
const consume = (body: Record<string, unknown>) => api.post('/recipe/signinup/code/consume', body);
const EXACTLY_ONE = errorText('Please provide exactly one of linkCode or deviceId+userInputCode');

describe('PasswordlessConsumeCodeAPITest5_0', () => {
  it('testBadInput: every refusal with the reference text', async () => {
    const c = await create('bad@example.com');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, errorText("Field name 'preAuthSessionId' is invalid in JSON input")],
      [{ preAuthSessionId: c.preAuthSessionId }, EXACTLY_ONE],
      [{ linkCode: c.linkCode, deviceId: c.deviceId, preAuthSessionId: c.preAuthSessionId, userInputCode: c.userInputCode }, EXACTLY_ONE],
      [{ preAuthSessionId: c.preAuthSessionId, linkCode: c.linkCode, userInputCode: c.userInputCode }, EXACTLY_ONE],
      [{ preAuthSessionId: c.preAuthSessionId, userInputCode: c.userInputCode }, EXACTLY_ONE],
      [{ deviceId: c.deviceId, preAuthSessionId: c.preAuthSessionId }, EXACTLY_ONE],
      [
        { deviceId: c.deviceId, preAuthSessionId: `${c.preAuthSessionId}asdf`, userInputCode: c.userInputCode },
        errorText("preAuthSessionId and deviceId doesn't match"),
      ],
      [{ preAuthSessionId: `${c.preAuthSessionId}asdf`, linkCode: c.linkCode }, errorText("preAuthSessionId and deviceId doesn't match")],
      [{ preAuthSessionId: c.preAuthSessionId, linkCode: `${c.linkCode}==#` }, errorText('Input encoding error in linkCode')],
      [{ preAuthSessionId: c.preAuthSessionId, deviceId: `${c.deviceId}==#` }, EXACTLY_ONE],
    ];
    for (const [body, text] of cases) {
      const r = await consume(body);
      expect([r.status, r.text], JSON.stringify(Object.keys(body))).toEqual([400, text]);
    }
  });

  it('testLinkCode: the link code creates the user, with consumedDevice', async () => {
    const c = await create('link@example.com');
    const r = await consume({ preAuthSessionId: c.preAuthSessionId, linkCode: c.linkCode });
    expect(r.json).toMatchObject({
      status: 'OK',
      createdNewUser: true,
      user: { emails: ['link@example.com'] },
      consumedDevice: { preAuthSessionId: c.preAuthSessionId, failedCodeInputAttemptCount: 0, email: 'link@example.com' },
    });
  });

  it('testUserInputCode: the device id and code create the user', async () => {
    const c = await create('code@example.com');
    const r = await consume({ deviceId: c.deviceId, preAuthSessionId: c.preAuthSessionId, userInputCode: c.userInputCode });
    expect(r.json).toMatchObject({ status: 'OK', createdNewUser: true, user: { emails: ['code@example.com'] } });
    // The code is spent with its device: consuming again is RESTART_FLOW_ERROR (what the exactly-once rule meets).
    expect((await consume({ deviceId: c.deviceId, preAuthSessionId: c.preAuthSessionId, userInputCode: c.userInputCode })).json).toEqual({
      status: 'RESTART_FLOW_ERROR',
    });
  });

  it('testExpiredLinkCode and testExpiredUserInputCode: RESTART_FLOW_ERROR and EXPIRED_USER_INPUT_CODE_ERROR', async () => {
    const a = await create('old-link@example.com');
    const b = await create('old-code@example.com');
    await advanceClock(sb, 900_001);
    expect((await consume({ preAuthSessionId: a.preAuthSessionId, linkCode: a.linkCode })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consume({ deviceId: b.deviceId, preAuthSessionId: b.preAuthSessionId, userInputCode: b.userInputCode })).json).toEqual({
      status: 'EXPIRED_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 5,
    });
  });
});
