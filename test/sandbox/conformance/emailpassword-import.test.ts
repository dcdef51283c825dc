// Conformance: POST /recipe/user/passwordhash/import and POST /recipe/signin, ported from supertokens-core
// src/test/java/io/supertokens/test/emailpassword/api/ImportUserWithPasswordHashAPITest.java (each test names the
// Java method). The Java tests send cdi-version 2.16 and user objects of that version; these send the latest,
// which changes only the user object's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/spawn.js';
import { client, errorText, startTestSandbox } from '../../support/sandbox.js';

let sb: RunningSandbox;
let unsigned: RunningSandbox;
let api: ReturnType<typeof client>;
const SIGNER = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
beforeAll(async () => {
  [sb, unsigned] = await Promise.all([startTestSandbox({ signerKey: SIGNER }), startTestSandbox({})]);
  api = client(sb);
});
afterAll(async () => {
  await Promise.all([sb?.stop(), unsigned?.stop()]);
});

const imp = (body: Record<string, unknown>, on = api) => on.post('/recipe/user/passwordhash/import', body);

describe('ImportUserWithPasswordHashAPITest', () => {
  it('testBadInput: every refusal with the reference text, in the reference order', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "Field name 'email' is invalid in JSON input"],
      [{ passwordHash: 'somePasswordHash' }, "Field name 'email' is invalid in JSON input"],
      [{ email: 'test@example.com' }, "Field name 'passwordHash' is invalid in JSON input"],
      [{ email: 'test@example.com', passwordHash: '' }, 'Password hash cannot be an empty string'],
      [{ email: 'test@example.com', passwordHash: 'invalidPasswordHash' }, 'Password hash is in invalid format'],
      [
        { email: 'test@example.com', passwordHash: 'somePasswordHash', hashingAlgorithm: 'random' },
        'Unsupported password hashing algorithm',
      ],
      [{ email: 'test@example.com', passwordHash: 'invalidHash', hashingAlgorithm: 'bcrypt' }, 'Password hash is in invalid BCrypt format'],
      [{ email: 'test@example.com', passwordHash: 'invalidHash', hashingAlgorithm: 'argon2' }, 'Password hash is in invalid Argon2 format'],
      [
        { email: 'test@example.com', passwordHash: 'invalidHash', hashingAlgorithm: 'firebase_scrypt' },
        'Password hash is in invalid Firebase SCrypt format',
      ],
    ];
    for (const [body, text] of cases) {
      const r = await imp(body);
      expect([r.status, r.text], JSON.stringify(body)).toEqual([400, errorText(text)]);
    }
  });

  it('testGoodInput: a bcrypt hash imported, then the password signs in and both answers show the same user', async () => {
    const r = await imp({ email: 'test@example.com', passwordHash: '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq' });
    expect(r.json).toMatchObject({ status: 'OK', didUserAlreadyExist: false });
    const s = await api.post('/recipe/signin', { email: 'test@example.com', password: 'testPass123' });
    expect(s.json.status).toBe('OK');
    expect(s.json.user).toEqual(r.json.user);
  });

  it('testUpdatingAUsersPasswordHash: an existing email keeps its id and takes the new hash', async () => {
    const up = await api.post('/recipe/signup', { email: 'upd@example.com', password: 'testPass123' });
    const r = await imp({ email: 'upd@example.com', passwordHash: '$2a$10$X2oX3mWh8JfgPTKtkKmc9OQwUVQAulwkGgIjcsK8h3rojHVQTebV6' });
    expect(r.json).toMatchObject({ status: 'OK', didUserAlreadyExist: true, user: { id: up.json.user.id } });
    expect((await api.post('/recipe/signin', { email: 'upd@example.com', password: 'newTestPass123' })).json.status).toBe('OK');
    expect((await api.post('/recipe/signin', { email: 'upd@example.com', password: 'testPass123' })).json.status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
  });

  it('testImportingUsersWithHashingAlgorithmFieldWithMixedLowerAndUpperCase: BcRyPt is bcrypt', async () => {
    const r = await imp({
      email: 'mixed@example.com',
      passwordHash: '$2a$10$X2oX3mWh8JfgPTKtkKmc9OQwUVQAulwkGgIjcsK8h3rojHVQTebV6',
      hashingAlgorithm: 'BcRyPt',
    });
    expect(r.json).toMatchObject({ status: 'OK', didUserAlreadyExist: false });
    expect((await api.post('/recipe/signin', { email: 'mixed@example.com', password: 'newTestPass123' })).json.status).toBe('OK');
  });

  it('testImportingUserFromFirebaseWithoutSettingSigningKey (ImportUserWithPasswordHashAPITest:303): 500 with the exception text', async () => {
    const hash =
      '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
    const r = await imp({ email: 'fb@example.com', passwordHash: hash, hashingAlgorithm: 'firebase_scrypt' }, client(unsigned));
    expect([r.status, r.text]).toEqual([
      500,
      errorText("java.lang.IllegalStateException: 'firebase_password_hashing_signer_key' cannot be null"),
    ]);
    // With the signer key: imported, and the public vector's password signs in.
    expect((await imp({ email: 'fb@example.com', passwordHash: hash, hashingAlgorithm: 'firebase_scrypt' })).json.status).toBe('OK');
    expect((await api.post('/recipe/signin', { email: 'fb@example.com', password: 'user1password' })).json.status).toBe('OK');
  });
});
