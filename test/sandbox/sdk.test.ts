// The official Node SDK (supertokens-node, dev dependency) pointed at a real sandbox: proof that a real
// client accepts its answers (apiversion negotiation, JSON shapes, user objects, TOTP and passwordless).
// The SDK insists on MultiFactorAuth (for TOTP) and Session being initialised; neither calls the core here.
import { createGuardrails, generate } from 'otplib';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Passwordless from 'supertokens-node/recipe/passwordless';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth';
import Session from 'supertokens-node/recipe/session';
import TOTP from 'supertokens-node/recipe/totp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE, client, startTestSandbox } from '../support/sandbox.js';

const API_KEY = 'sdk-test-api-key-0123456789';
const SIGNER = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
const SCRYPT_USER1 =
  '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
const ARGON2 = '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
const SECRET = 'GEZDGNBVGY3TQOJQ'; // 80 bits

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startTestSandbox({ apiKeys: [API_KEY], licenseKey: LICENSE, signerKey: SIGNER });
  api = client(sb, { 'api-key': API_KEY });
  supertokens.init({
    supertokens: { connectionURI: sb.url, apiKey: API_KEY },
    appInfo: { appName: 'auth-migrate-test', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    recipeList: [
      EmailPassword.init(),
      Passwordless.init({ contactMethod: 'EMAIL_OR_PHONE', flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK' }),
      TOTP.init(),
      MultiFactorAuth.init(),
      Session.init(),
    ],
  });
});
afterAll(async () => {
  await sb?.stop();
});

describe('supertokens-node against the sandbox', () => {
  it('EmailPassword.verifyCredentials for imported users (argon2id, external scrypt), wrong password refused', async () => {
    expect((await api.post('/recipe/user/passwordhash/import', { email: 'sdk-argon@x.io', passwordHash: ARGON2 })).json.status).toBe('OK');
    expect(
      (
        await api.post('/recipe/user/passwordhash/import', {
          email: 'sdk-scrypt@x.io',
          passwordHash: SCRYPT_USER1,
          hashingAlgorithm: 'firebase_scrypt',
        })
      ).json.status,
    ).toBe('OK');
    expect(await EmailPassword.verifyCredentials('public', 'sdk-argon@x.io', 'password')).toEqual({ status: 'OK' });
    expect(await EmailPassword.verifyCredentials('public', 'sdk-scrypt@x.io', 'user1password')).toEqual({ status: 'OK' });
    expect(await EmailPassword.verifyCredentials('public', 'sdk-scrypt@x.io', 'hunter2')).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const signIn = await EmailPassword.signIn('public', 'sdk-argon@x.io', 'password');
    expect(signIn.status).toBe('OK');
    if (signIn.status === 'OK') expect(signIn.user.emails).toEqual(['sdk-argon@x.io']);
  });

  it('Passwordless.createCode / consumeCode', async () => {
    const code = await Passwordless.createCode({ tenantId: 'public', email: 'sdk-pl@x.io' });
    expect(code.status).toBe('OK');
    const wrong = await Passwordless.consumeCode({
      tenantId: 'public',
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: 'nope!!',
    });
    expect(wrong).toMatchObject({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 1, maximumCodeInputAttempts: 5 });
    const ok = await Passwordless.consumeCode({
      tenantId: 'public',
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    expect(ok.status).toBe('OK');
    if (ok.status === 'OK') {
      expect(ok.createdNewRecipeUser).toBe(true);
      expect(ok.user.emails).toEqual(['sdk-pl@x.io']);
      expect(ok.user.loginMethods[0]!.verified).toBe(true);
      expect(ok.recipeUserId.getAsString()).toBe(ok.user.id);
    }
    const link = await Passwordless.createCode({ tenantId: 'public', phoneNumber: '+14155550123' });
    const byLink = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: link.preAuthSessionId, linkCode: link.linkCode });
    expect(byLink.status).toBe('OK');
  });

  it('TOTP.listDevices and TOTP.verifyTOTP for an imported device', async () => {
    expect((await api.post('/recipe/totp/device/import', { userId: 'sdk-user', skew: 1, period: 30, secretKey: SECRET })).json.status).toBe(
      'OK',
    );
    const list = await TOTP.listDevices('sdk-user');
    expect(list).toEqual({ status: 'OK', devices: [{ name: 'TOTP Device 0', period: 30, skew: 1, verified: true }] });
    const totp = await generate({
      secret: SECRET,
      epoch: Math.floor(Date.now() / 1000),
      period: 30,
      digits: 6,
      guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }),
    });
    expect(await TOTP.verifyTOTP('public', 'sdk-user', totp)).toEqual({ status: 'OK' });
    expect(await TOTP.verifyTOTP('public', 'sdk-user', totp)).toMatchObject({ status: 'INVALID_TOTP_ERROR' });
  });
});
