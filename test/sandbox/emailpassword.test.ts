// Password-hash import and sign-in against a real sandbox: the import validation texts, the public vectors
// of formats.md (bcrypt, argon2id, external scrypt), refusal of wrong passwords, the missing signer key 500.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { BCRYPT, TEXT_TYPE, client, errorText, startTestSandbox } from '../support/sandbox.js';

const SIGNER = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
const SCRYPT_USER1 =
  '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
const SCRYPT_HUNTER2 =
  '$f_scrypt$70k8Vg5B3/OrvJOiqusnasv0dLcBHoDAqJrJr7TRLBfMw4MitWx51YXJYFdGiyMbMeKtWtLf5HiBDcN0SUOm4A==$42xEC+ixf3L2lw==$s=Bw==$r=8$m=14';
const ARGON2 = '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
const MISSING_KEY = "java.lang.IllegalStateException: 'firebase_password_hashing_signer_key' cannot be null";

let sb: RunningSandbox;
let plain: RunningSandbox;
let api: ReturnType<typeof client>;
let noKey: ReturnType<typeof client>;

beforeAll(async () => {
  [sb, plain] = await Promise.all([startTestSandbox({ signerKey: SIGNER }), startTestSandbox()]);
  api = client(sb);
  noKey = client(plain);
});
afterAll(async () => {
  await Promise.all([sb?.stop(), plain?.stop()]);
});

const importHash = (c: ReturnType<typeof client>, body: Record<string, unknown>, path = '/recipe/user/passwordhash/import') =>
  c.post(path, body);

describe('POST /recipe/user/passwordhash/import', () => {
  it.each([
    [{ passwordHash: BCRYPT }, "Field name 'email' is invalid in JSON input"],
    [{ email: 'a@x.io' }, "Field name 'passwordHash' is invalid in JSON input"],
    [{ email: 'a@x.io', passwordHash: '   ' }, 'Password hash cannot be an empty string'],
    [{ email: 'a@x.io', passwordHash: BCRYPT, hashingAlgorithm: ' ' }, 'Hashing Algorithm cannot be an empty string'],
    [{ email: 'a@x.io', passwordHash: BCRYPT, hashingAlgorithm: 'md5' }, 'Unsupported password hashing algorithm'],
    [{ email: 'a@x.io', passwordHash: 'plain-text' }, 'Password hash is in invalid format'],
    [{ email: 'a@x.io', passwordHash: ARGON2, hashingAlgorithm: 'bcrypt' }, 'Password hash is in invalid BCrypt format'],
    [{ email: 'a@x.io', passwordHash: BCRYPT, hashingAlgorithm: 'ARGON2' }, 'Password hash is in invalid Argon2 format'],
    [{ email: 'a@x.io', passwordHash: BCRYPT, hashingAlgorithm: 'firebase_scrypt' }, 'Password hash is in invalid Firebase SCrypt format'],
    [
      { email: 'a@x.io', passwordHash: '$f_scrypt$a$b$m=x$r=8$s=Bw==', hashingAlgorithm: ' External_Scrypt ' },
      'Password hash is in invalid Firebase SCrypt format',
    ],
  ])('%j -> 400 %s', async (body, message) => {
    const a = await importHash(api, body);
    expect([a.status, a.type, a.text]).toEqual([400, TEXT_TYPE, errorText(message)]);
  });

  it('accepts loose prefixes like the reference core (no deep parsing at import)', async () => {
    const a = await importHash(api, { email: 'loose@x.io', passwordHash: '$2y$whatever' });
    expect(a.json.status).toBe('OK');
    // ...and such a hash simply never signs in.
    expect((await api.post('/recipe/signin', { email: 'loose@x.io', password: 'x' })).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('creates a user with the §2 shape, then only replaces the hash (answer shows the user before)', async () => {
    const first = await importHash(api, { email: '  Ada@Example.COM ', passwordHash: ` ${BCRYPT} `, hashingAlgorithm: 'BCRYPT' });
    expect(first.json.status).toBe('OK');
    expect(first.json.didUserAlreadyExist).toBe(false);
    const user = first.json.user;
    expect(Object.keys(user)).toEqual([
      'id',
      'isPrimaryUser',
      'tenantIds',
      'timeJoined',
      'emails',
      'phoneNumbers',
      'thirdParty',
      'webauthn',
      'loginMethods',
    ]);
    expect(user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(user).toMatchObject({
      isPrimaryUser: false,
      tenantIds: ['public'],
      emails: ['ada@example.com'],
      phoneNumbers: [],
      thirdParty: [],
    });
    expect(user.loginMethods).toEqual([
      {
        tenantIds: ['public'],
        recipeUserId: user.id,
        verified: false,
        timeJoined: user.timeJoined,
        recipeId: 'emailpassword',
        email: 'ada@example.com',
      },
    ]);
    expect(first.json).not.toHaveProperty('recipeUserId');
    const again = await importHash(api, { email: 'ada@example.com', passwordHash: ARGON2 });
    expect(again.json).toEqual({ status: 'OK', user, didUserAlreadyExist: true });
    // The new hash is in force: argon2's password signs in, bcrypt's no longer does.
    expect((await api.post('/recipe/signin', { email: 'ada@example.com', password: 'password' })).json.status).toBe('OK');
    expect((await api.post('/recipe/signin', { email: 'ada@example.com', password: 'U*U' })).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('fake emails are created verified', async () => {
    const a = await importHash(api, { email: 'x@stfakeemail.supertokens.com', passwordHash: BCRYPT });
    expect(a.json.user.loginMethods[0].verified).toBe(true);
  });

  it('a scrypt hash with no signer key configured answers 500 on import (auto-detected or named)', async () => {
    for (const body of [
      { email: 's@x.io', passwordHash: SCRYPT_USER1 },
      { email: 's@x.io', passwordHash: SCRYPT_USER1, hashingAlgorithm: 'firebase_scrypt' },
      { email: 's@x.io', passwordHash: 'garbage', hashingAlgorithm: 'external_scrypt' },
    ]) {
      const a = await importHash(noKey, body);
      expect([a.status, a.type, a.text]).toEqual([500, TEXT_TYPE, errorText(MISSING_KEY)]);
    }
  });
});

describe('POST /recipe/signin with the public vectors', () => {
  it.each([
    ['bcrypt', 'bc@x.io', BCRYPT, 'bcrypt', 'U*U', 'U*V'],
    ['bcrypt $2b', 'bc2@x.io', '$2b' + BCRYPT.slice(3), undefined, 'U*U', 'u*u'],
    ['argon2id', 'ar@x.io', ARGON2, 'argon2', 'password', 'passw0rd'],
    ['external scrypt (external_scrypt)', 'fs@x.io', SCRYPT_USER1, 'external_scrypt', 'user1password', 'hunter2'],
    ['external scrypt (FIREBASE_SCRYPT, m/r/s reordered)', 'fs2@x.io', SCRYPT_HUNTER2, 'FIREBASE_SCRYPT', 'hunter2', 'user1password'],
  ])('%s: right password signs in, wrong one is refused', async (_n, email, hash, alg, right, wrong) => {
    const imported = await importHash(api, { email, passwordHash: hash, ...(alg ? { hashingAlgorithm: alg } : {}) });
    expect(imported.json.status).toBe('OK');
    const ok = await api.post('/recipe/signin', { email: email.toUpperCase(), password: right });
    expect(ok.json).toEqual({ status: 'OK', user: imported.json.user, recipeUserId: imported.json.user.id });
    expect((await api.post('/recipe/signin', { email, password: wrong })).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('an unknown email is WRONG_CREDENTIALS_ERROR', async () => {
    expect((await api.post('/recipe/signin', { email: 'ghost@x.io', password: 'x' })).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('a scrypt user signing in on a core without signer key answers 500 (store restarted without the key)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'am-sbx-test-'));
    const store = join(dir, 'store.json');
    const withKey = await startTestSandbox({ signerKey: SIGNER, store });
    expect(
      (await client(withKey).post('/recipe/user/passwordhash/import', { email: 'later@x.io', passwordHash: SCRYPT_USER1 })).json.status,
    ).toBe('OK');
    await withKey.stop();
    const without = await startTestSandbox({ store });
    try {
      const a = await client(without).post('/recipe/signin', { email: 'later@x.io', password: 'user1password' });
      expect([a.status, a.type, a.text]).toEqual([500, TEXT_TYPE, errorText(MISSING_KEY)]);
    } finally {
      await without.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sign-up and PUT /recipe/user (email-password)', () => {
  it('signs up, refuses a duplicate, changes the password', async () => {
    const up = await api.post('/recipe/signup', { email: 'new@x.io', password: 'first-pass' });
    expect(up.json.status).toBe('OK');
    expect((await api.post('/recipe/signup', { email: 'new@x.io', password: 'x' })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    const id = up.json.user.id;
    expect((await api.put('/recipe/user', { recipeUserId: id })).text).toBe(errorText('You have to provide either email or password.'));
    expect((await api.put('/recipe/user', { recipeUserId: 'nope', password: 'x' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await api.put('/recipe/user', { recipeUserId: id, password: 'second-pass' })).json).toEqual({ status: 'OK' });
    expect((await api.post('/recipe/signin', { email: 'new@x.io', password: 'second-pass' })).json.status).toBe('OK');
    expect((await api.post('/recipe/signin', { email: 'new@x.io', password: 'first-pass' })).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });
});
