import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/hashes/verify.js';
import { detectAlgorithm, parseExternalScrypt, parseHashingAlgorithmName, stripExporterPrefix } from '../../src/hashes/formats.js';

// Public vectors from shared/formats.md.
const SIGNER = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
const SCRYPT_USER1 =
  '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
const SCRYPT_HUNTER2 =
  '$f_scrypt$70k8Vg5B3/OrvJOiqusnasv0dLcBHoDAqJrJr7TRLBfMw4MitWx51YXJYFdGiyMbMeKtWtLf5HiBDcN0SUOm4A==$42xEC+ixf3L2lw==$s=Bw==$r=8$m=14';
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const ARGON2 = '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';

describe('verifyPassword with the public vectors', () => {
  it.each([
    ['external scrypt user1password', SCRYPT_USER1, 'user1password'],
    ['external scrypt hunter2 (m/r/s reordered)', SCRYPT_HUNTER2, 'hunter2'],
    ['bcrypt $2a$', BCRYPT, 'U*U'],
    ['bcrypt $2b$ (rewritten to $2a$ as the core does)', '$2b' + BCRYPT.slice(3), 'U*U'],
    ['argon2id', ARGON2, 'password'],
  ])('%s matches', async (_name, hash, password) => {
    expect(await verifyPassword(hash, password, { signerKey: SIGNER })).toEqual({ result: 'match' });
  });

  it.each([
    ['external scrypt', SCRYPT_USER1, 'hunter2'],
    ['bcrypt', BCRYPT, 'U*V'],
    ['argon2id', ARGON2, 'passw0rd'],
  ])('%s refuses a wrong password', async (_name, hash, password) => {
    expect(await verifyPassword(hash, password, { signerKey: SIGNER })).toEqual({ result: 'mismatch' });
  });

  it('a wrong signer key makes a right password mismatch', async () => {
    const other = Buffer.alloc(64, 7).toString('base64');
    expect(await verifyPassword(SCRYPT_USER1, 'user1password', { signerKey: other })).toEqual({ result: 'mismatch' });
  });

  it('says when the signer key is missing, apart from a wrong password', async () => {
    expect(await verifyPassword(SCRYPT_USER1, 'user1password')).toEqual({ result: 'missing-signer-key' });
  });

  it('says "cannot verify" for malformed or unsupported hashes, apart from a wrong password', async () => {
    for (const hash of [
      '$argon2id$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc', // no v=
      '$argon2id$v=16$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
      '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ=$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc', // padded
      '$2a$05$short',
      'md5:abcdef',
    ]) {
      expect((await verifyPassword(hash, 'password', { signerKey: SIGNER })).result).toBe('unsupported');
    }
  });

  it('encodes non-ASCII passwords as US-ASCII for external scrypt, like the reference core', async () => {
    // "user1passwor?" with the last char non-ASCII hashes as "user1passwor?" — not as the real character.
    expect((await verifyPassword(SCRYPT_USER1, 'user1passworé', { signerKey: SIGNER })).result).toBe('mismatch');
  });
});

describe('hash formats', () => {
  it('parses the external scrypt string in any m/r/s order and refuses other shapes', () => {
    expect(parseExternalScrypt(SCRYPT_HUNTER2)).toMatchObject({ memCost: 14, rounds: 8, saltSeparator: 'Bw==', salt: '42xEC+ixf3L2lw==' });
    expect(parseExternalScrypt('$f_scrypt$a$b$m=x$r=8$s=Bw==')).toBeNull();
    expect(parseExternalScrypt('$f_scrypt$a$b$m=14$r=8')).toBeNull();
    expect(parseExternalScrypt('$f_scrypt$a$b$m=14$r=8$q=1')).toBeNull();
  });

  it('detects algorithms by the core prefixes', () => {
    expect(detectAlgorithm(SCRYPT_USER1)).toBe('external_scrypt');
    expect(detectAlgorithm(BCRYPT)).toBe('bcrypt');
    expect(detectAlgorithm('$2y$10$x')).toBe('bcrypt');
    expect(detectAlgorithm(ARGON2)).toBe('argon2');
    expect(detectAlgorithm('$argon2d$v=19$m=12,t=3,p=1$aGI4enNvMmd0Zm0wMDAwMA$r6p7qbr6HD+8CD7sBi4HVw')).toBe('argon2');
    expect(detectAlgorithm('{bcrypt}$2a$10$x')).toBeNull();
  });

  it('reads hashingAlgorithm names in any case, both spellings of the scrypt variant', () => {
    expect(parseHashingAlgorithmName(' firebase_scrypt ')).toBe('external_scrypt');
    expect(parseHashingAlgorithmName('EXTERNAL_SCRYPT')).toBe('external_scrypt');
    expect(parseHashingAlgorithmName('Argon2')).toBe('argon2');
    expect(parseHashingAlgorithmName('md5')).toBeNull();
  });

  it.each([
    ['{bcrypt}' + BCRYPT, BCRYPT, '{bcrypt}'],
    ['bcrypt$' + BCRYPT, BCRYPT, 'bcrypt$'],
    ['argon2' + ARGON2, ARGON2, 'argon2'],
  ])('strips the exporter prefix of %s', (input, hash, stripped) => {
    expect(stripExporterPrefix(input)).toEqual({ hash, stripped });
  });

  it('leaves a hash without exporter prefix alone', () => {
    expect(stripExporterPrefix(BCRYPT)).toEqual({ hash: BCRYPT });
  });
});
