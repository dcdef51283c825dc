// The legacy checkers against public test vectors, each cited. A wrong password must not match, and a vector
// changed by one character must not either, so each row can fail.
import { describe, expect, it } from 'vitest';
import { checkLegacyPassword, legacyCheckGap, type LegacyCheckSettings } from 'auth-migrate-signin/protocol';
import { detectLegacyHash } from 'auth-migrate-signin/protocol';
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
  // phpass: passlib/tests/test_handlers.py phpass_test (phpass 0.1's own test vector, then John the Ripper's).
  ['phpass 0.1 test suite (passlib phpass_test)', 'test12345', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
  ['John the Ripper (passlib phpass_test)', 'test1', '$H$9aaaaaSXBjgypwqm.JsMssPLiS8YQ00'],
  ['John the Ripper (passlib phpass_test)', 'thisisalongertestPW', '$P$912345678LIjjb6PhecupozNBmDndU0'],
  ['John the Ripper (passlib phpass_test)', 'JohnRipper', '$P$612345678si5M0DDyPpmRCmcltU/YW/'],
  // Werkzeug's form (werkzeug.security._hash_internal: method$salt$hex, the salt as text) of RFC 7914 section 12's
  // scrypt vectors (dkLen 64, Werkzeug's), and of RFC 6070's PBKDF2-HMAC-SHA1 vector 3 and Django's pbkdf2 vector.
  [
    'RFC 7914 scrypt vector 2 in Werkzeug form',
    'password',
    'scrypt:1024:8:16$NaCl$fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
  ],
  [
    'RFC 7914 scrypt vector 3 in Werkzeug form',
    'pleaseletmein',
    'scrypt:16384:8:1$SodiumChloride$7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
  ],
  ['RFC 6070 vector 3 in Werkzeug form', 'password', 'pbkdf2:sha1:4096$salt$4b007901b765489abead49d926f721d065a429c1'],
  [
    'Django test_pbkdf2 in Werkzeug form',
    'lètmein',
    `pbkdf2:sha256:120000$seasalt$${Buffer.from('fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=', 'base64').toString('hex')}`,
  ],
  // Clerk's password_hasher layouts (Backend API, POST /v1/users): Django's vector with the salt in base64
  // (pbkdf2_sha256), RFC 6070 vector 3 with the key in hex (pbkdf2_sha1), Werkzeug's scrypt (scrypt_werkzeug).
  [
    "Django's vector in Clerk's pbkdf2_sha256",
    'lètmein',
    { algorithm: 'pbkdf2_sha256', hash: `pbkdf2_sha256$120000$${b64('seasalt')}$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=` },
  ],
  [
    "Django's vector named pbkdf2_sha256 (salt as text)",
    'lètmein',
    { algorithm: 'pbkdf2_sha256', hash: 'pbkdf2_sha256$120000$seasalt$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=' },
  ],
  [
    "RFC 6070 vector 3 in Clerk's pbkdf2_sha1",
    'password',
    { algorithm: 'pbkdf2_sha1', hash: 'pbkdf2_sha1$4096$salt$4b007901b765489abead49d926f721d065a429c1' },
  ],
  [
    "RFC 7914 vector 3 as Clerk's scrypt_werkzeug",
    'pleaseletmein',
    {
      algorithm: 'scrypt_werkzeug',
      hash: 'scrypt:16384:8:1$SodiumChloride$7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
    },
  ],
  // Supabase's $fbscrypt$ as a legacy entry (the readers convert it when p=1; the checker takes any p):
  // supabase/auth internal/crypto/password_test.go, TestScrypt "Firebase Scrypt: appropriate hash".
  [
    'GoTrue TestScrypt (Firebase Scrypt)',
    'mytestpassword',
    {
      algorithm: 'fbscrypt',
      hash:
        '$fbscrypt$v=1,n=14,r=8,p=1,ss=Bw==,sk=ou9tdYTGyYm8kuR6Dt0Bp0kDuAYoXrK16mbZO4yGwAn3oLspjnN0/c41v8xZnO1n14J3MjKj1b2g6AUCAlFwMw==$C0sHCg9ek77hsg==$' +
        'zKVTMvnWVw5BBOZNUdnsalx4c4c7y/w7IS5p6Ut2+CfEFFlz37J9huyQfov4iizN8dbjvEJlM5tQaJP84+hfTw==',
    },
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
    const legacy = { algorithm: 'sha512_symfony', hash: 'c2FsdHNhbHRzYWx0c2FsdA==984478476IagS59wHZvyQMArzfx58u' };
    expect(legacyCheckGap(legacy)).toBe('no checker for the algorithm sha512_symfony');
    const out = await checkLegacyPassword(legacy, 'test12345');
    expect(out.result).toBe('unsupported');
    expect(JSON.stringify(out)).not.toContain('984478476');
  });

  it("Cognito's hashless entries are no gap: the app's Cognito function checks them (src/signin, `cognito`)", () => {
    expect(legacyCheckGap({ algorithm: 'aws_cognito', hash: '', params: { username: 'u' } })).toBeUndefined();
  });

  it('a phpass count beyond 2^20 or Werkzeug scrypt beyond 256 MiB is refused with a reason, not run', async () => {
    const slow = await checkLegacyPassword({ algorithm: 'phpass', hash: '$P$J12345678LIjjb6PhecupozNBmDndU0' }, 'x');
    expect(slow).toMatchObject({ result: 'unsupported', reason: expect.stringMatching(/2\^20/) });
    const big = await checkLegacyPassword({ algorithm: 'werkzeug', hash: 'scrypt:1048576:8:1$salt$00ff' }, 'x');
    expect(big).toMatchObject({ result: 'unsupported', reason: expect.stringMatching(/memory/) });
  });

  it("a vendor's own name for a recognised form is checked by the form (Clerk's pbkdf2_sha256_django)", async () => {
    const legacy = { algorithm: 'pbkdf2_sha256_django', hash: 'pbkdf2_sha256$120000$seasalt$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=' };
    expect(await checkLegacyPassword(legacy, 'lètmein')).toEqual({ result: 'match' });
  });
});
