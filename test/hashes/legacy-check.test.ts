// The legacy checkers against public test vectors, each cited. A wrong password must not match, and a vector
// changed by one character must not either, so each row can fail.
import { describe, expect, it } from 'vitest';
import { checkLegacyPassword, legacyCheckGap, type LegacyCheckSettings } from '../../src/hashes/legacy-check.js';
import { detectLegacyHash } from '../../src/hashes/legacy.js';
import type { CanonicalLegacyPassword } from '../../src/records/types.js';

/** passlib's UPASS_TABLE (passlib/tests/test_handlers.py). */
const UPASS_TABLE = 't\u00e1\u0411\u2113\u0259';

type Row = [source: string, password: string, legacy: CanonicalLegacyPassword | string, settings?: LegacyCheckSettings];

const b64 = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text, encoding).toString('base64');

const ROWS: Row[] = [
  // Django tests/auth_tests/test_hashers.py (test_sha1, test_md5, test_unsalted_md5, test_unsalted_sha1, test_pbkdf2 of Django 2.1)
  ['Django test_sha1', 'lètmein', 'sha1$seasalt$cff36ea83f5706ce9aa7454e63e431fc726b2dc8'],
  ['Django test_md5', 'lètmein', 'md5$seasalt$3f86d0d3d465b7b458c231bf3555c0e3'],
  ['Django test_unsalted_md5', 'lètmein', '88a434c88cca4e900f7874cd98123f43'],
  ['Django test_pbkdf2 (2.1)', 'lètmein', 'pbkdf2_sha256$120000$seasalt$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc='],
  // passlib/tests/test_handlers_django.py
  ['passlib django_pbkdf2_sha1_test', 'not a password', 'pbkdf2_sha1$10000$wz5B6WkasRoF$atJmJ1o+XfJxKq1+Nu1f1i57Z5I='],
  ['passlib django_bcrypt_sha256_test', '', 'bcrypt_sha256$$2a$06$/3OeRpbOf8/l6nPPRdZPp.nRiyYqPobEZGdNRBWihQhiFDh1ws1tu'],
  ['passlib django_bcrypt_sha256_test', UPASS_TABLE, 'bcrypt_sha256$$2a$06$kCXUnRFQptGg491siDKNTu8RxjBGSjALHRuvhPYNFsa4Ea5d9M48u'],
  // passlib/tests/test_handlers.py (pbkdf2_sha1_test, pbkdf2_sha256_test, pbkdf2_sha512_test)
  ['passlib pbkdf2_sha1_test', 'password', '$pbkdf2$1212$OB.dtnSEXZK8U5cgxU/GYQ$y5LKPOplRmok7CZp/aqVDVg8zGI'],
  ['passlib pbkdf2_sha256_test', 'password', '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ'],
  [
    'passlib pbkdf2_sha512_test',
    'password',
    '$pbkdf2-sha512$1212$RHY0Fr3IDMSVO/RSZyb5ow$eNLfBK.eVozomMr.1gYa17k9B7KIK25NOEshvhrSX.esqY3s.FvWZViXz4KoLlQI.BzY/YTNJOiKc5gBYFYGww',
  ],
  // passlib md5_crypt_test; Drepper's "Unix crypt using SHA-256 and SHA-512" test vectors (also glibc's crypt)
  ['passlib md5_crypt_test', 'test', '$1$ec6XvcoW$ghEtNK2U1MC5l.Dwgi3020'],
  ['passlib md5_crypt_test', '', '$1$dOHYPKoP$tnxS1T8Q6VVn3kpV8cN6o.'],
  ['sha-crypt spec', 'Hello world!', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5'],
  ['sha-crypt spec', 'Hello world!', '$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA'],
  [
    'sha-crypt spec',
    'Hello world!',
    '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
  ],
  [
    'sha-crypt spec',
    'Hello world!',
    '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.',
  ],
  // passlib ldap_sha1_test, ldap_md5_test, ldap_salted_sha1_test, ldap_salted_md5_test
  ['passlib ldap_sha1_test', 'helloworld', '{SHA}at+xg6SiyUovktq1redipHiJpaE='],
  ['passlib ldap_md5_test', 'helloworld', '{MD5}/F4DjTilcDIIVEHn/nAQsA=='],
  ['passlib ldap_salted_sha1_test', 'testing123', '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr'],
  ['passlib ldap_salted_sha1_test (16-byte salt)', 'test', '{SSHA}Pfx6Vf48AT9x3FVv8znbo8WQkEVSipHSWovxXmvNWUvp/d/7'],
  ['passlib ldap_salted_md5_test', 'testing1234', '{SMD5}UjFY34os/pnZQ3oQOzjqGu4yeXE='],
  // Spring Security crypto/.../Pbkdf2PasswordEncoderTests.passivity (new Pbkdf2PasswordEncoder("secret"))
  [
    'Spring Pbkdf2PasswordEncoderTests.passivity',
    'password',
    '{pbkdf2}ab1146a8458d4ce4e65789e5a3f60e423373cfa10b01abd23739e5ae2fdc37f8e9ede4ae6da65264',
    { spring: { secret: 'secret' } },
  ],
  // Keycloak's pbkdf2 is PBKDF2WithHmacSHA1 (RFC 6070 vector 3) and pbkdf2-sha256 PBKDF2WithHmacSHA256 (Django's
  // vector above), in Keycloak's credential form: base64 salt and value, hashIterations.
  [
    'RFC 6070 in Keycloak form',
    'password',
    { algorithm: 'pbkdf2', hash: b64('4b007901b765489abead49d926f721d065a429c1', 'hex'), salt: b64('salt'), params: { iterations: 4096 } },
  ],
  [
    'Django test_pbkdf2 in Keycloak form',
    'lètmein',
    {
      algorithm: 'pbkdf2-sha256',
      hash: 'fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=',
      salt: b64('seasalt'),
      params: { iterations: 120000 },
    },
  ],
  // Firebase SHA1 with --hash-input-order=PASSWORD_FIRST, rounds 1 (blog.salrashid.dev, "Importing SHA hashed
  // passwords into Firebase and Identity Platform": Password1, salt "XiwiihQ=", kfjS+dtoePcY0vEKx1w5ol2ZJ88=).
  [
    'Firebase SHA1 (salrashid.dev)',
    'Password1',
    { algorithm: 'firebase_sha1', hash: 'kfjS+dtoePcY0vEKx1w5ol2ZJ88=', salt: b64('XiwiihQ='), params: { rounds: 1 } },
    { firebase: { hashInputOrder: 'PASSWORD_FIRST' } },
  ],
  // The same digest as a plain salted sha1 with the salt after the password.
  ['salted sha1, salt after', 'Password1', { algorithm: 'sha1', hash: 'kfjS+dtoePcY0vEKx1w5ol2ZJ88=', salt: 'XiwiihQ=' }],
];

const asLegacy = (l: CanonicalLegacyPassword | string): CanonicalLegacyPassword => {
  if (typeof l !== 'string') return l;
  const spring = /^\{pbkdf2\}(.+)$/.exec(l);
  if (spring) return { algorithm: 'spring', hash: spring[1]!, params: { id: 'pbkdf2' } };
  return detectLegacyHash(l)!;
};

/** The same hash with one character of its checksum changed (still well formed). */
function tamper(legacy: CanonicalLegacyPassword): CanonicalLegacyPassword {
  const h = legacy.hash;
  const i = h.length - 6;
  const swap = h[i] === 'A' ? 'B' : h[i] === '0' ? '1' : /[a-f]/.test(h[i]!) ? (h[i] === 'a' ? 'b' : 'a') : 'A';
  return { ...legacy, hash: h.slice(0, i) + swap + h.slice(i + 1) };
}

describe('legacy checkers, public vectors', () => {
  it.each(ROWS)('%s: %j', async (_source, password, raw, settings) => {
    const legacy = asLegacy(raw);
    expect(legacy, 'the shape is recognised').toBeDefined();
    expect(legacyCheckGap(legacy, settings)).toBeUndefined();
    expect(await checkLegacyPassword(legacy, password, settings)).toEqual({ result: 'match' });
    expect(await checkLegacyPassword(legacy, password + 'x', settings)).toEqual({ result: 'mismatch' });
    expect((await checkLegacyPassword(tamper(legacy), password, settings)).result).not.toBe('match');
  });
});

describe('legacy checkers, settings and gaps', () => {
  it('Firebase HMAC needs the key; with it HMAC(key, salt + password) matches (SALT_FIRST, the default)', async () => {
    const key = Buffer.from('hmac-key-0123456789');
    const salt = Buffer.from('NaCl');
    const { createHmac } = await import('node:crypto');
    const hash = createHmac('sha256', key).update(salt).update('hunter2').digest('base64');
    const legacy = { algorithm: 'firebase_hmac_sha256', hash, salt: salt.toString('base64') };
    expect(await checkLegacyPassword(legacy, 'hunter2')).toMatchObject({
      result: 'unsupported',
      reason: expect.stringMatching(/signerKey/),
    });
    const settings = { firebase: { signerKey: key.toString('base64') } };
    expect(await checkLegacyPassword(legacy, 'hunter2', settings)).toEqual({ result: 'match' });
    expect(await checkLegacyPassword(legacy, 'hunter3', settings)).toEqual({ result: 'mismatch' });
  });

  it('an algorithm with no checker is named, never matched; the reason holds no part of the hash', async () => {
    const legacy = { algorithm: 'phpass', hash: '$P$984478476IagS59wHZvyQMArzfx58u.' };
    expect(legacyCheckGap(legacy)).toBe('no checker for the algorithm phpass');
    const out = await checkLegacyPassword(legacy, 'test12345');
    expect(out.result).toBe('unsupported');
    expect(JSON.stringify(out)).not.toContain('984478476');
  });

  it("a vendor's own name for a recognised form is checked by the form (Clerk's pbkdf2_sha256_django)", async () => {
    const legacy = { algorithm: 'pbkdf2_sha256_django', hash: 'pbkdf2_sha256$120000$seasalt$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=' };
    expect(await checkLegacyPassword(legacy, 'lètmein')).toEqual({ result: 'match' });
  });
});
