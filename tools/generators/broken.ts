// Broken examples beside the valid fixtures: each shows one way real exports go wrong.
import { gzipSync } from 'node:zlib';
import type { CanonicalUser } from '../../src/records/types.js';
import { argon2Hash, bcryptHash, externalScryptString, firebaseScryptUser, type ScryptConfig } from './hashes.js';
import type { Rng } from '../../src/shared/rng.js';
import { generateSecret } from './totp.js';

export interface BrokenFile {
  name: string;
  content: Buffer | string;
  /** What it shows, for the README. */
  shows: string;
}

const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';

export async function brokenFixtures(rng: Rng, scrypt: ScryptConfig, validCanonical: string, validFirebase: string): Promise<BrokenFile[]> {
  const files: BrokenFile[] = [];
  const add = (name: string, content: Buffer | string, shows: string): void => void files.push({ name, content, shows });
  const bcrypt = bcryptHash('irrelevant-pw', rng);
  const argon = await argon2Hash('irrelevant-pw', rng);
  const scryptString = externalScryptString(await firebaseScryptUser('irrelevant-pw', rng, scrypt), scrypt);

  add('empty.json', '', 'an empty file (0 bytes): unreadable');
  const garbage = rng.bytes(300);
  garbage[7] = 0;
  garbage[8] = 0xff;
  add('garbage.bin', garbage, 'binary data: unreadable');
  add(
    'truncated.json',
    validCanonical.slice(0, Math.floor(validCanonical.length * 0.6)),
    'canonical JSON cut in the middle of an element: the records before the cut are read, then an error with the byte offset',
  );
  add('firebase-truncated.json', validFirebase.slice(0, Math.floor(validFirebase.length * 0.5)), 'a Firebase export cut in the middle');
  add(
    'firebase-no-users.json',
    json({ kind: 'identitytoolkit#DownloadAccountResponse', nextPageToken: 'x' }),
    'a JSON object without a `users` array (with --format firebase)',
  );
  add(
    'wrong-types.json',
    json([
      {
        id: 'w-1',
        email: 'w1@example.com',
        emailVerified: 'yes',
        password: { hash: bcrypt },
        totp: [{ secret: generateSecret(rng).secret, period: '30' }],
      },
      { id: 42, email: 'w2@example.com' },
      'just a string',
      { id: 'w-4', email: 'w4@example.com', thirdParty: { providerId: 'google', userId: '1' } },
      { id: 'w-5', email: 'w5@example.com', password: bcrypt },
      { id: 'w-6', emial: 'w6@example.com', password: { hash: bcrypt, algorithm: 'md5' } },
    ]),
    'fields of the wrong type: each named (`emailVerified must be true or false`, `totp[0].period must be a number`), elements that are not objects, a record without an id, an unknown field (typo)',
  );
  add(
    'bad-lines.ndjson',
    [
      JSON.stringify({ id: 'l-1', email: 'l1@example.com', password: { hash: bcrypt } }),
      'this line is not JSON',
      '{"id": "l-3", "email": ',
      '[1, 2, 3]',
      JSON.stringify({ id: 'l-5', email: 'l5@example.com', password: { hash: bcrypt } }),
    ].join('\n') + '\n',
    'NDJSON with bad lines between good ones: each bad line is a problem, reading continues',
  );
  const user = (id: string, fields: Partial<CanonicalUser>): CanonicalUser => ({ id, email: `${id}@example.com`, ...fields });
  add(
    'bad-hashes.json',
    json([
      user('h-bcrypt-short', { password: { hash: bcrypt.slice(0, 40) } }),
      user('h-bcrypt-2x', { password: { hash: '$2x$' + bcrypt.slice(4) } }),
      user('h-bcrypt-prefixed', { password: { hash: '{bcrypt}' + bcrypt } }),
      user('h-django-argon2', { password: { hash: 'argon2' + argon } }),
      user('h-argon2-v16', { password: { hash: argon.replace('v=19', 'v=16') } }),
      user('h-argon2-no-v', { password: { hash: argon.replace('$v=19', '') } }),
      user('h-argon2-padded', { password: { hash: argon + '=' } }),
      user('h-md5', { password: { hash: '5f4dcc3b5aa765d61d8327deb882cf99' } }),
      user('h-unknown', { password: { hash: 'not-a-hash-format-anyone-uses' } }),
      user('h-scrypt-6-parts', { password: { hash: scryptString.replace(/\$s=[^$]*$/, '') } }),
      user('h-scrypt-bad-m', { password: { hash: scryptString.replace(/m=\d+/, 'm=fourteen') } }),
      user('h-scrypt-websafe', { password: { hash: scryptString.replace(/\+/g, '-').replace(/\//g, '_') } }),
      user('h-wrong-algorithm', { password: { hash: bcrypt, algorithm: 'argon2' } }),
    ]),
    'hashes: short bcrypt, $2x$, exporter prefixes ({bcrypt}, argon2$), argon2 v=16 / no v / padded, an md5 hex (a hash the core cannot take), a hash of no known format, scrypt strings with 6 parts, a non-integer m, web-safe base64, an algorithm that contradicts the hash',
  );
  const s = (encoding: 'base32' | 'base64' | 'hex', size = 20): string => generateSecret(rng, encoding, size).secret;
  add(
    'bad-secrets.json',
    json([
      user('t-bad-base32', { password: { hash: bcrypt }, totp: [{ secret: 'JBSWY3DPEHPK3PX1' }] }),
      user('t-short', { password: { hash: bcrypt }, totp: [{ secret: s('base32', 8) }] }),
      user('t-weak', { password: { hash: bcrypt }, totp: [{ secret: s('base32', 10) }] }),
      user('t-odd-hex', { password: { hash: bcrypt }, totp: [{ secret: s('hex').slice(1), encoding: 'hex' }] }),
      user('t-bad-base64', { password: { hash: bcrypt }, totp: [{ secret: 'not*base64!', encoding: 'base64' }] }),
      user('t-period-0', { password: { hash: bcrypt }, totp: [{ secret: s('base32'), period: 0, skew: -1 }] }),
      user('t-sha256', { password: { hash: bcrypt }, totp: [{ secret: s('base32'), algorithm: 'SHA256', digits: 8 }] }),
      user('t-same-device', {
        password: { hash: bcrypt },
        totp: [
          { secret: s('base32'), deviceName: 'phone' },
          { secret: s('base32'), deviceName: 'phone' },
        ],
      }),
    ]),
    'TOTP: a base32 secret with `1`, a secret of 8 bytes (error) and 10 bytes (warning), odd hex, bad base64, period 0 and skew -1, SHA256 with 8 digits, two devices with one name',
  );
  add(
    'duplicates.json',
    json([
      user('d-1', { email: 'dup@example.com', password: { hash: bcrypt } }),
      user('d-1', { email: 'other@example.com', password: { hash: bcrypt } }),
      user('d-3', { email: ' DUP@Example.com ', password: { hash: bcrypt } }),
      user('d-4', { email: 'd4@example.com', thirdParty: [{ providerId: 'google', userId: 'g-1' }] }),
      user('d-5', { email: 'd5@example.com', thirdParty: [{ providerId: 'google', userId: 'g-1' }] }),
    ]),
    'a duplicate id, a duplicate email among email-password users (differing only in case and spaces), a duplicate (provider, user id)',
  );
  add(
    'bad-contacts.json',
    json([
      user('p-no-plus', { email: undefined, phoneNumber: '4155550100' }),
      user('p-dashes', { password: { hash: bcrypt }, otpFactors: { phoneNumber: '555-0100' } }),
      user('p-too-long', { email: undefined, phoneNumber: '+1234567890123456' }),
      { id: 'p-bad-email', email: 'not-an-email', password: { hash: bcrypt } },
      user('p-factor-email-taken', { password: { hash: bcrypt }, otpFactors: { email: 'p-bad-email-owner@example.com' } }),
      user('p-bad-email-owner', { password: { hash: bcrypt } }),
    ]),
    'phone numbers without + or too long, a bad email, an email factor whose email belongs to another user',
  );
  add(
    'no-first-factor.json',
    json([
      { id: 'n-totp-only', totp: [{ secret: s('base32') }] },
      { id: 'n-otp-only', otpFactors: { email: 'n-otp-only@example.com' } },
      { id: 'n-nothing', email: 'n-nothing@example.com' },
      { id: 'n-otp-empty', email: 'n-otp-empty@example.com', password: { hash: bcrypt }, otpFactors: {} },
    ]),
    'TOTP or one-time-code factors with no first factor, a user with nothing to sign in with, an empty otpFactors',
  );
  add('not-gzip.ndjson.gz', JSON.stringify({ id: 'z-1' }) + '\n', 'a plain text file named .gz: unreadable');
  const gz = gzipSync(
    Buffer.from(Array.from({ length: 200 }, (_, i) => JSON.stringify({ user_id: `auth0|z${i}`, email: `z${i}@example.com` })).join('\n')),
  );
  add(
    'truncated.ndjson.gz',
    gz.subarray(0, Math.floor(gz.length / 2)),
    'gzip cut in half: the lines before the break are read, then an error',
  );
  add(
    'totp-bad.csv',
    [
      'email,secret,encoding,period,skew,deviceName',
      `ann@example.com,${s('base32')},base32,30,1,"Phone, old"`,
      `ben@example.com,${s('base32')}`,
      `eli@example.com,${s('base32')},base58,30,1,Phone`,
      `eli@example.com,${s('base32')},base32,thirty,1,Tablet`,
      `nobody@example.com,${s('base32')},base32,30,1,Phone`,
    ].join('\n') + '\n',
    'TOTP CSV (use with firebase/export.json): a quoted device name with a comma (fine), a row with missing columns, a bad encoding, a non-numeric period, a row that matches no user',
  );
  add('totp-no-header.csv', `ann@example.com,${s('base32')}\n`, 'a CSV without its header line: unreadable');
  add(
    'otpauth-bad.txt',
    [
      `otpauth://totp/Example:fb-ann?secret=${s('base32')}&issuer=Example&algorithm=SHA256&digits=8`,
      `otpauth://hotp/Example:fb-ben?secret=${s('base32')}&counter=1`,
      'https://example.com/not-otpauth',
      `otpauth://totp/Example:?secret=${s('base32')}`,
    ].join('\n') + '\n',
    'otpauth lines (use with firebase/export.json): SHA256 and 8 digits (flagged), hotp, not a URI, no account name',
  );
  return files;
}
