// Hashes the core cannot take (issue 10): recognised by shape, an error under the default policy, and under
// `without-password` a warning with the hash set aside as legacyPassword while the rest of the user stays valid.
import { describe, expect, it } from 'vitest';
import { detectLegacyHash } from 'auth-migrate-signin/protocol';
import { createValidator } from '../../src/records/validate.js';
import type { UnusableHashPolicy } from '../../src/records/legacy-rules.js';
import { parseHashConfig } from '../../src/sources/index.js';
import { firebaseItem } from '../../src/sources/firebase.js';
import { BCRYPT } from '../support/vectors.js';

describe('detectLegacyHash', () => {
  it.each([
    ['5f4dcc3b5aa765d61d8327deb882cf99', 'md5'],
    ['5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8', 'sha1'],
    ['5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8', 'sha256'],
    [
      'b109f3bbbc244eb82441917ed06d618b9008dd09b3befd1b5e07394c706a8bb980b1d7785e5976ec049b46df5f1326af5a2ea6d103fd07c95385ffab0cacbc86',
      'sha512',
    ],
    ['pbkdf2_sha256$260000$c2FsdA$aGFzaA==', 'django_pbkdf2'],
    ['sha1$salt$5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8', 'django_salted'],
    [`bcrypt_sha256$${BCRYPT}`, 'django_bcrypt_sha256'],
    ['$pbkdf2-sha256$29000$N2GMUcr5n1PqHWOM$Ez9yQdtE2TsE5SiqM3Ne1VwkCCu8mPKp1Kj0nQ5ynuk', 'passlib_pbkdf2'],
    ['$1$saltsalt$qjXMvbEw8oaL.CzflDugX/', 'md5_crypt'],
    ['{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'ldap'],
  ])('%s is %s', (hash, algorithm) => {
    expect(detectLegacyHash(hash)?.algorithm).toBe(algorithm);
  });

  it('splits Django pbkdf2 into hash, salt and iterations', () => {
    expect(detectLegacyHash('pbkdf2_sha256$260000$c2FsdA$aGFzaA==')).toEqual({
      algorithm: 'django_pbkdf2',
      hash: 'aGFzaA==',
      salt: 'c2FsdA',
      params: { digest: 'sha256', iterations: 260000 },
    });
  });

  it('does not take importable or unknown hashes for legacy ones', () => {
    expect(detectLegacyHash(BCRYPT)).toBeUndefined();
    expect(detectLegacyHash('abc123')).toBeUndefined();
    expect(detectLegacyHash('5f4dcc3b5aa765d61d8327deb882cf9')).toBeUndefined(); // 31 hex digits
  });
});

function validate(records: Array<Record<string, unknown>>, unusableHashes?: UnusableHashPolicy) {
  const v = createValidator({ unusableHashes });
  const results = records.map((record, index) => v.add({ record: record as never, origin: { file: 'u.json', index }, problems: [] }));
  v.finish();
  return results;
}

const MD5 = '5f4dcc3b5aa765d61d8327deb882cf99';
const withGoogle = {
  id: 'm1',
  email: 'm1@example.com',
  password: { hash: MD5 },
  thirdParty: [{ providerId: 'google', userId: 'g-1' }],
  metadata: { plan: 'pro' },
};

describe('--unusable-hashes', () => {
  it('skip (the default): an error naming the record and the option; the hash is never in the message', () => {
    const [r] = validate([withGoogle]);
    expect(r!.valid).toBe(false);
    const p = r!.problems.find((x) => x.rule === 'password.unusable')!;
    expect(p).toMatchObject({ severity: 'error', sourceId: 'm1', field: 'password.hash' });
    expect(p.message).toMatch(/the password hash is md5.*--unusable-hashes without-password/);
    expect(p.message).not.toContain(MD5);
    expect(r!.record.legacyPassword).toEqual({ algorithm: 'md5', hash: MD5 });
  });

  it('without-password: a warning; the record is valid without its password and keeps the rest', () => {
    const [r] = validate([withGoogle], 'without-password');
    expect(r!.valid).toBe(true);
    expect(r!.problems.map((p) => [p.rule, p.severity])).toEqual([['password.unusable', 'warning']]);
    expect(r!.record.password).toBeUndefined();
    expect(r!.record.legacyPassword).toEqual({ algorithm: 'md5', hash: MD5 });
    expect(r!.record.thirdParty).toHaveLength(1);
    expect(r!.record.metadata).toEqual({ plan: 'pro' });
  });

  it("Django's bcrypt_sha256 is never stripped to its bcrypt part: it goes to the legacy path whole", () => {
    const [skip] = validate([{ id: 'd1', email: 'd1@example.com', password: { hash: `bcrypt_sha256$${BCRYPT}` } }]);
    expect(skip!.valid).toBe(false);
    expect(skip!.problems.map((p) => p.rule)).toEqual(['password.prefix.wrapped']);
    const [kept] = validate([{ id: 'd1', email: 'd1@example.com', password: { hash: `bcrypt_sha256$${BCRYPT}` } }], 'without-password');
    expect(kept!.record.password).toBeUndefined();
    expect(kept!.record.legacyPassword).toEqual({ algorithm: 'django_bcrypt_sha256', hash: BCRYPT });
  });

  it('a user with nothing but such a password is valid under without-password (run lists it; nothing is created)', () => {
    const [r] = validate([{ id: 'p1', email: 'p1@example.com', password: { hash: MD5 } }], 'without-password');
    expect(r!.valid).toBe(true);
    expect(r!.problems.map((p) => p.rule)).toEqual(['password.unusable']);
  });
});

describe('Firebase hash configs other than SCRYPT', () => {
  it('an HMAC_SHA256 config is read; its users get a legacy password (the key is not copied into it)', () => {
    const config = parseHashConfig('hash_config {\n  algorithm: HMAC_SHA256,\n  base64_signer_key: c2VjcmV0LWtleQ==,\n}');
    expect(config).toMatchObject({ algorithm: 'HMAC_SHA256', signerKey: 'c2VjcmV0LWtleQ==' });
    const item = firebaseItem(
      { localId: 'f1', email: 'f1@example.com', passwordHash: 'aGFzaA==', salt: 'c2FsdA==' },
      { file: 'export.json', index: 0 },
      { hashConfig: config, providers: () => undefined },
    );
    expect(item.kind).toBe('record');
    if (item.kind !== 'record') return;
    expect(item.value.record.password).toBeUndefined();
    expect(item.value.record.legacyPassword).toEqual({ algorithm: 'firebase_hmac_sha256', hash: 'aGFzaA==', salt: 'c2FsdA==' });
    expect(JSON.stringify(item.value.record)).not.toContain('c2VjcmV0LWtleQ');
  });
});
