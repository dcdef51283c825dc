// The spot-check reproduces the public vectors of formats.md and tells its outcomes apart.
import { scryptSync, createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { spotCheckPassword } from '../../src/records/spot-check.js';
import type { CanonicalUser } from '../../src/records/types.js';
import {
  ARGON2,
  ARGON2_PASSWORD,
  BCRYPT,
  BCRYPT_PASSWORD,
  SCRYPT,
  SCRYPT_HUNTER2_HASH,
  SCRYPT_SALT,
  SIGNER_KEY,
  scryptString,
} from '../support/vectors.js';

const user = (hash: string): CanonicalUser => ({ id: 'u1', email: 'a@example.com', password: { hash } });

describe('password spot-check', () => {
  it.each([
    ['bcrypt', BCRYPT, BCRYPT_PASSWORD],
    ['bcrypt $2y$', BCRYPT.replace('$2a$', '$2y$'), BCRYPT_PASSWORD],
    ['argon2id', ARGON2, ARGON2_PASSWORD],
    ['external scrypt (user1password)', SCRYPT, 'user1password'],
    ['external scrypt (hunter2)', scryptString(SCRYPT_HUNTER2_HASH), 'hunter2'],
    ['prefixed bcrypt', `{bcrypt}${BCRYPT}`, BCRYPT_PASSWORD],
  ])('%s: the public vector matches and a wrong password is "wrong-password"', async (_name, hash, password) => {
    expect((await spotCheckPassword(user(hash), password, { signerKey: SIGNER_KEY })).result).toBe('match');
    const wrong = await spotCheckPassword(user(hash), `${password}x`, { signerKey: SIGNER_KEY });
    expect(wrong.result).toBe('wrong-password');
    expect(wrong.detail).toMatch(/wrong password/);
  });

  it('a wrong signer key reads as a wrong password, and says to check the hash parameters', async () => {
    const other = Buffer.alloc(64, 7).toString('base64');
    const outcome = await spotCheckPassword(user(SCRYPT), 'user1password', { signerKey: other });
    expect(outcome.result).toBe('wrong-password');
    expect(outcome.detail).toMatch(/signer key/);
  });

  it('tells "cannot verify this format" apart from a wrong password', async () => {
    for (const hash of [ARGON2.replace('v=19', 'v=16'), ARGON2.replace('c29tZXNhbHQ', 'c29tZXNhbHQ='), 'md5$abc', BCRYPT.slice(0, -2)]) {
      const outcome = await spotCheckPassword(user(hash), 'password', {});
      expect(outcome.result).toBe('cannot-verify');
      expect(outcome.detail).toMatch(/^cannot verify this format/);
    }
  });

  it('needs the signer key for the external scrypt variant', async () => {
    const outcome = await spotCheckPassword(user(SCRYPT), 'user1password', {});
    expect(outcome.result).toBe('missing-signer-key');
  });

  it('says so when the user has no password', async () => {
    expect((await spotCheckPassword({ id: 'u1', phoneNumber: '+14155550123' }, 'x', {})).result).toBe('no-password');
  });

  it('flags a non-ASCII password on the external scrypt variant, and sees when it is right but the core cannot check it', async () => {
    // A hash made the way the source does it: over the password's UTF-8 bytes (node:crypto, independent of the code under test).
    const password = 'pässwörd';
    const salt = Buffer.concat([Buffer.from(SCRYPT_SALT, 'base64'), Buffer.from('Bw==', 'base64')]);
    const dk = scryptSync(Buffer.from(password, 'utf8'), salt, 64, { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const cipher = createCipheriv('aes-256-ctr', dk.subarray(0, 32), Buffer.alloc(16, 0));
    const hash = Buffer.concat([cipher.update(Buffer.from(SIGNER_KEY, 'base64')), cipher.final()]).toString('base64');
    const record = user(scryptString(hash));
    const right = await spotCheckPassword(record, password, { signerKey: SIGNER_KEY });
    expect(right).toMatchObject({ result: 'cannot-verify', nonAsciiRisk: true });
    expect(right.detail).toMatch(/password is right/);
    const wrong = await spotCheckPassword(record, 'pässwört', { signerKey: SIGNER_KEY });
    expect(wrong).toMatchObject({ result: 'wrong-password', nonAsciiRisk: true });
    const ascii = await spotCheckPassword(user(SCRYPT), 'user1password', { signerKey: SIGNER_KEY });
    expect(ascii.nonAsciiRisk).toBeUndefined();
  });

  it('never puts the password, the hash or the signer key in the detail', async () => {
    for (const [hash, password] of [
      [SCRYPT, 'user1password'],
      [SCRYPT, 'nope'],
      [BCRYPT, 'U*U'],
      [ARGON2, 'nope'],
    ] as const) {
      for (const key of [SIGNER_KEY, undefined]) {
        const { detail } = await spotCheckPassword(user(hash), password, { signerKey: key });
        for (const s of [hash, password, SIGNER_KEY, hash.split('$')[2]!]) expect(detail).not.toContain(s);
      }
    }
  });
});
