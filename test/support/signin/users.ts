// Users of the sign-in migration tests: one per algorithm the checkers cover, each with its known password (public
// vectors, as cited in test/hashes/legacy-check.test.ts), plus users for the wrong-password, race, disabled,
// reset and Cognito cases. Shared by the sandbox test and the reference-core suite (test/core/).
import { createHmac } from 'node:crypto';

/** The secret the test runs and the test app share (AUTH_MIGRATE_SIGNIN_SECRET). */
export const SIGNIN_SECRET = 'signin-secret-for-the-tests-0123456789';
export const FIREBASE_KEY = Buffer.from('firebase-hmac-key-for-tests').toString('base64');
export const HASHES = {
  firebase: { signerKey: FIREBASE_KEY, hashInputOrder: 'PASSWORD_FIRST' as const },
  spring: { secret: 'secret' },
};
const b64 = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text, encoding).toString('base64');
const hmacHash = createHmac('sha256', Buffer.from(FIREBASE_KEY, 'base64')).update('fb-password').update('NaCl').digest('base64');

export interface SignInUser {
  label: string;
  password: string;
  record: Record<string, unknown>;
}

const MD5_LETMEIN = '88a434c88cca4e900f7874cd98123f43';

/** `label@<domain>`; the label is also the source id. */
export function signInUsers(domain: string): SignInUser[] {
  const user = (label: string, password: string, fields: Record<string, unknown>): SignInUser => ({
    label,
    password,
    record: { id: label, email: `${label}@${domain}`, ...fields },
  });
  const hash = (h: string) => ({ password: { hash: h } });
  return [
    user('md5', 'lètmein', hash(MD5_LETMEIN)),
    user('sha1-salted', 'Password1', { legacyPassword: { algorithm: 'sha1', hash: 'kfjS+dtoePcY0vEKx1w5ol2ZJ88=', salt: 'XiwiihQ=' } }),
    user('django-pbkdf2', 'lètmein', hash('pbkdf2_sha256$120000$seasalt$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=')),
    user('django-sha1', 'lètmein', hash('sha1$seasalt$cff36ea83f5706ce9aa7454e63e431fc726b2dc8')),
    user(
      'django-bcrypt-sha256',
      't\u00e1\u0411\u2113\u0259',
      hash('bcrypt_sha256$$2a$06$kCXUnRFQptGg491siDKNTu8RxjBGSjALHRuvhPYNFsa4Ea5d9M48u'),
    ),
    user('passlib-pbkdf2', 'password', hash('$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ')),
    user('md5-crypt', 'test', hash('$1$ec6XvcoW$ghEtNK2U1MC5l.Dwgi3020')),
    user('sha256-crypt', 'Hello world!', hash('$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5')),
    user(
      'sha512-crypt',
      'Hello world!',
      hash('$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'),
    ),
    user('ldap-ssha', 'testing123', hash('{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr')),
    user('ldap-sha', 'helloworld', hash('{SHA}at+xg6SiyUovktq1redipHiJpaE=')),
    user('spring-pbkdf2', 'password', hash('{pbkdf2}ab1146a8458d4ce4e65789e5a3f60e423373cfa10b01abd23739e5ae2fdc37f8e9ede4ae6da65264')),
    user('keycloak-pbkdf2', 'password', {
      legacyPassword: {
        algorithm: 'pbkdf2',
        hash: b64('4b007901b765489abead49d926f721d065a429c1', 'hex'),
        salt: b64('salt'),
        params: { iterations: 4096 },
      },
    }),
    user('firebase-hmac', 'fb-password', { legacyPassword: { algorithm: 'firebase_hmac_sha256', hash: hmacHash, salt: b64('NaCl') } }),
    user('firebase-sha1', 'Password1', {
      legacyPassword: { algorithm: 'firebase_sha1', hash: 'kfjS+dtoePcY0vEKx1w5ol2ZJ88=', salt: b64('XiwiihQ='), params: { rounds: 1 } },
    }),
    user('phpass', 'test12345', hash('$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0')),
    user(
      'werkzeug-scrypt',
      'pleaseletmein',
      hash(
        'scrypt:16384:8:1$SodiumChloride$7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
      ),
    ),
    user('clerk-pbkdf2-sha256', 'lètmein', {
      legacyPassword: {
        algorithm: 'pbkdf2_sha256',
        hash: `pbkdf2_sha256$120000$${b64('seasalt')}$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=`,
      },
    }),
    user('clerk-pbkdf2-sha1', 'password', {
      legacyPassword: { algorithm: 'pbkdf2_sha1', hash: 'pbkdf2_sha1$4096$salt$4b007901b765489abead49d926f721d065a429c1' },
    }),
    user('cognito', 'cognito-pass-1', {
      legacyPassword: { algorithm: 'aws_cognito', hash: '', params: { username: 'cog-1', userStatus: 'CONFIRMED' } },
    }),
  ];
}

/** Users of the other cases, all md5 of `lètmein`. */
export function caseUsers(domain: string): Record<'wrong' | 'race' | 'disabled' | 'reset' | 'temporary', SignInUser> {
  const md5 = (label: string, extra: Record<string, unknown> = {}): SignInUser => ({
    label,
    password: 'lètmein',
    record: { id: label, email: `${label}@${domain}`, password: { hash: MD5_LETMEIN }, ...extra },
  });
  return {
    wrong: md5('wrong'),
    race: md5('race'),
    disabled: md5('disabled', { disabled: true }),
    reset: md5('reset'),
    temporary: {
      label: 'temporary',
      password: 'temporary-1',
      record: {
        id: 'temporary',
        email: `temporary@${domain}`,
        legacyPassword: { algorithm: 'aws_cognito', hash: '', params: { username: 'cog-temp', userStatus: 'FORCE_CHANGE_PASSWORD' } },
      },
    },
  };
}

/** A stand-in for the old Cognito pool the app would call: its users, their passwords and statuses. */
export const COGNITO_POOL: Record<string, { password: string; status: string }> = {
  'cog-1': { password: 'cognito-pass-1', status: 'CONFIRMED' },
  'cog-temp': { password: 'temporary-1', status: 'FORCE_CHANGE_PASSWORD' },
};
