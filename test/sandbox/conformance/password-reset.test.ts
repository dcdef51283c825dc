// Email-password reset tokens on a real sandbox, as the reference core 11.4.4 answers them:
// GeneratePasswordResetTokenAPI.doPost (userId by supertokens or external id, email required from CDI 4.0,
// UNKNOWN_USER_ID_ERROR for an id no user has) and EmailPassword.consumeResetPasswordToken (EmailPassword.java
// 553-624: every token of the user deleted in the consume's transaction, so a second token is spent too; an
// expired token deleted and refused; ConsumeResetPasswordAPI answers the external id when mapped).
import { describe, expect, it } from 'vitest';
import { BCRYPT, LICENSE, advanceClock, sandboxForFile } from '../../support/sandbox.js';

const { sb, api } = sandboxForFile({ licenseKey: LICENSE });

const importEp = async (email: string) => {
  const a = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT });
  expect(a.json.status).toBe('OK');
  return a.json.user.id as string;
};
const token = async (userId: string, email: string) => {
  const a = await api.post('/recipe/user/password/reset/token', { userId, email });
  expect(a.json.status).toBe('OK');
  return a.json.token as string;
};
const consume = (t: string) => api.post('/recipe/user/password/reset/token/consume', { token: t });

describe('password reset tokens', () => {
  it('a token is single use; consuming one spends every other token of the user', async () => {
    const id = await importEp('reset-a@example.test');
    const t1 = await token(id, 'reset-a@example.test');
    const t2 = await token(id, 'reset-a@example.test');
    expect(t1).not.toBe(t2);
    expect(t1).toMatch(/^[A-Za-z0-9]+$/);
    expect((await consume(t1)).json).toEqual({ status: 'OK', userId: id, email: 'reset-a@example.test' });
    expect((await consume(t1)).json).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    expect((await consume(t2)).json).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
  });

  it('of two consumes of tokens of one user sent at once, exactly one is OK', async () => {
    const id = await importEp('reset-race@example.test');
    const [a, b] = [await token(id, 'reset-race@example.test'), await token(id, 'reset-race@example.test')];
    const answers = await Promise.all([consume(a), consume(b)]);
    expect(answers.map((x) => x.json.status).sort()).toEqual(['OK', 'RESET_PASSWORD_INVALID_TOKEN_ERROR']);
  });

  it('by external id: created for the mapped user, the consume answers the external id', async () => {
    const id = await importEp('reset-ext@example.test');
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: 'ext-reset' })).json.status).toBe('OK');
    const t = await token('ext-reset', 'reset-ext@example.test');
    expect((await consume(t)).json).toEqual({ status: 'OK', userId: 'ext-reset', email: 'reset-ext@example.test' });
  });

  it('unknown user, missing email, expired token', async () => {
    expect((await api.post('/recipe/user/password/reset/token', { userId: 'nobody', email: 'x@example.test' })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    const missing = await api.post('/recipe/user/password/reset/token', { userId: 'nobody' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("Field name 'email' is invalid in JSON input");
    const id = await importEp('reset-old@example.test');
    const t = await token(id, 'reset-old@example.test');
    await advanceClock(sb, 3_600_001);
    expect((await consume(t)).json).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
  });
});
