// One case per validation rule: the rule fires on `fires` (with its severity) and stays silent on `nearMiss`.
import { describe, expect, it } from 'vitest';
import { createValidator, type ValidatedRecord } from '../../src/records/validate.js';
import type { Problem, Severity } from '../../src/records/types.js';
import { ARGON2, BCRYPT, SCRYPT, SCRYPT_USER1_HASH, SIGNER_KEY, TOTP_SECRET, base32Of, scryptString } from '../support/vectors.js';

type Raw = Record<string, unknown>;

function validate(records: Raw[], signerKey?: string): { results: ValidatedRecord[]; late: Problem[]; all: Problem[] } {
  const validator = createValidator({ signerKey });
  const results = records.map((record, index) =>
    validator.add({ record: record as never, origin: { file: 'users.json', index }, problems: [] }),
  );
  const late = [...validator.finish()];
  return { results, late, all: [...results.flatMap((r) => r.problems), ...late] };
}

const user = (extra: Raw = {}): Raw => ({ id: 'u1', email: 'a@example.com', password: { hash: BCRYPT }, ...extra });
const pw = (hash: string, algorithm?: string): Raw => user({ password: algorithm === undefined ? { hash } : { hash, algorithm } });
const totp = (device: Raw): Raw => user({ totp: [{ secret: TOTP_SECRET, ...device }] });
const google = (id: string, userId: string, email = `${id}@example.com`): Raw => ({
  id,
  email,
  thirdParty: [{ providerId: 'google', userId }],
});

interface Case {
  rule: string;
  severity: Severity;
  fires: Raw[];
  nearMiss: Raw[];
  signerKey?: string;
}

const cases: Case[] = [
  // identity
  // Profile data.
  { rule: 'metadata.type', severity: 'error', fires: [user({ metadata: ['x'] })], nearMiss: [user({ metadata: { displayName: 'Ada' } })] },
  {
    rule: 'roles.type',
    severity: 'error',
    fires: [user({ roles: [''] })],
    nearMiss: [user({ roles: ['admin', { role: 'editor', tenantIds: ['t1'] }] })],
  },
  {
    rule: 'roles.type',
    severity: 'error',
    fires: [user({ roles: [{ role: 'x', tenantIds: [''] }] })],
    nearMiss: [user({ roles: [{ role: 'x' }] })],
  },
  // Field sizes (size-rules.ts): the core's columns.
  {
    rule: 'field.too-long',
    severity: 'error',
    fires: [{ id: 'u1', email: 'a@example.com', thirdParty: [{ providerId: 'x'.repeat(29), userId: 'g1' }] }],
    nearMiss: [{ id: 'u1', email: 'a@example.com', thirdParty: [{ providerId: 'x'.repeat(28), userId: 'g1' }] }],
  },
  {
    rule: 'field.too-long',
    severity: 'error',
    fires: [user({ email: `${'a'.repeat(250)}@example.com` })],
    nearMiss: [user({ email: `${'a'.repeat(240)}@example.com` })],
  },
  {
    rule: 'field.too-long',
    severity: 'error',
    fires: [user({ totp: [{ secret: 'A'.repeat(257) }] })],
    nearMiss: [user({ totp: [{ secret: 'A'.repeat(32) }] })],
  },
  // Metadata over 512 KiB as UTF-8 JSON; near misses whose quick upper bound is over the limit but whose text is not.
  {
    rule: 'field.too-long',
    severity: 'error',
    fires: [
      user({ metadata: { bio: 'é'.repeat(262_144) } }),
      user({ id: 'u2', email: 'b@example.com', metadata: { notes: Array.from({ length: 6000 }, () => 'x'.repeat(100)) } }),
    ],
    nearMiss: [
      user({ metadata: { bio: 'é'.repeat(262_000) } }),
      user({ id: 'u2', email: 'b@example.com', metadata: { notes: Array.from({ length: 5000 }, () => 'x'.repeat(100)) } }),
    ],
  },
  { rule: 'id.missing', severity: 'error', fires: [user({ id: '  ' })], nearMiss: [user({ id: 42 })] },
  {
    rule: 'id.duplicate',
    severity: 'error',
    fires: [user(), user({ email: 'b@example.com' })],
    nearMiss: [user(), user({ id: 'u2', email: 'b@example.com' })],
  },
  {
    rule: 'externalUserId.empty',
    severity: 'error',
    fires: [user({ externalUserId: ' ' })],
    nearMiss: [user({ externalUserId: 'ext-1' })],
  },
  {
    rule: 'externalUserId.too-long',
    severity: 'error',
    fires: [user({ externalUserId: 'x'.repeat(129) })],
    nearMiss: [user({ externalUserId: 'x'.repeat(128) })],
  },
  {
    rule: 'externalUserId.duplicate',
    severity: 'error',
    fires: [user({ externalUserId: 'e' }), user({ id: 'u2', email: 'b@example.com', externalUserId: 'e' })],
    nearMiss: [user({ externalUserId: 'e' }), user({ id: 'u2', email: 'b@example.com', externalUserId: 'f' })],
  },
  // emails and phones
  { rule: 'email.syntax', severity: 'error', fires: [user({ email: 'not-an-email' })], nearMiss: [user({ email: '  A.B@Example.COM ' })] },
  {
    rule: 'email.syntax',
    severity: 'error',
    fires: [user({ otpFactors: { email: 'a@b' } })],
    nearMiss: [user({ otpFactors: { email: 'a@b.co' } })],
  },
  { rule: 'email.missing', severity: 'error', fires: [{ id: 'u1', password: { hash: BCRYPT } }], nearMiss: [user()] },
  {
    rule: 'email.duplicate',
    severity: 'error',
    fires: [user({ email: 'A@example.com' }), user({ id: 'u2', email: ' a@EXAMPLE.com' })],
    nearMiss: [user(), { ...google('u2', 'g2'), email: 'a@example.com' }],
  },
  {
    rule: 'phone.e164',
    severity: 'error',
    fires: [{ id: 'u1', phoneNumber: '4155550123' }],
    nearMiss: [{ id: 'u1', phoneNumber: '+1 (415) 555-0123' }],
  },
  {
    rule: 'phone.e164',
    severity: 'error',
    fires: [{ id: 'u1', phoneNumber: '+0415550123' }],
    nearMiss: [{ id: 'u1', phoneNumber: '+44 20 7946 0958' }],
  },
  {
    rule: 'phone.e164',
    severity: 'error',
    fires: [user({ otpFactors: { phoneNumber: '020 7946 0958' } })],
    nearMiss: [user({ otpFactors: { phoneNumber: '+442079460958' } })],
  },
  // Not parseable by libphonenumber (the reference core would keep it as typed; nobody could sign in with it).
  {
    rule: 'phone.e164',
    severity: 'error',
    fires: [{ id: 'u1', phoneNumber: '+999 123' }],
    nearMiss: [{ id: 'u1', phoneNumber: '+1 650-555-1234' }],
  },
  // The reference core's own examples (Utils.normalizeIfPhoneNumber): the trunk 0 is dropped.
  {
    rule: 'phone.normalised',
    severity: 'warning',
    fires: [{ id: 'u1', phoneNumber: '+640223334444' }],
    nearMiss: [{ id: 'u1', phoneNumber: '+64223334444' }],
  },
  {
    rule: 'phone.normalised',
    severity: 'warning',
    fires: [{ id: 'u1', phoneNumber: '+44 (0)20 7946 0958' }],
    nearMiss: [{ id: 'u1', phoneNumber: '+44 20 7946 0958' }],
  },
  {
    // Two numbers that differ only by the trunk 0 are one user on the reference core: one duplicate here.
    rule: 'phone.duplicate',
    severity: 'error',
    fires: [
      { id: 'u1', phoneNumber: '+640223334444' },
      { id: 'u2', phoneNumber: '+64223334444' },
    ],
    nearMiss: [
      { id: 'u1', phoneNumber: '+64223334444' },
      { id: 'u2', phoneNumber: '+64223334445' },
    ],
  },
  {
    rule: 'phone.duplicate',
    severity: 'error',
    fires: [
      { id: 'u1', phoneNumber: '+14155550123' },
      { id: 'u2', phoneNumber: '+1 415 555 0123' },
    ],
    nearMiss: [
      { id: 'u1', phoneNumber: '+14155550123' },
      { id: 'u2', phoneNumber: '+14155550124' },
    ],
  },
  // third party
  {
    rule: 'thirdParty.type',
    severity: 'error',
    fires: [user({ thirdParty: { providerId: 'google' } })],
    nearMiss: [user({ thirdParty: [] })],
  },
  {
    rule: 'thirdParty.missing-field',
    severity: 'error',
    fires: [user({ thirdParty: [{ providerId: 'google' }] })],
    nearMiss: [user({ thirdParty: [{ providerId: 'google', userId: 'g1' }] })],
  },
  {
    rule: 'thirdParty.email-missing',
    severity: 'error',
    fires: [{ id: 'u1', thirdParty: [{ providerId: 'google', userId: 'g1' }] }],
    nearMiss: [{ id: 'u1', thirdParty: [{ providerId: 'google', userId: 'g1', email: 'g@example.com' }] }],
  },
  {
    rule: 'thirdParty.duplicate',
    severity: 'error',
    fires: [google('u1', 'g1'), google('u2', 'g1')],
    nearMiss: [google('u1', 'g1'), google('u2', 'g2')],
  },
  {
    rule: 'thirdParty.duplicate',
    severity: 'error',
    fires: [
      {
        id: 'u1',
        email: 'a@example.com',
        thirdParty: [
          { providerId: 'google', userId: 'g1' },
          { providerId: 'google', userId: 'g1' },
        ],
      },
    ],
    nearMiss: [
      {
        id: 'u1',
        email: 'a@example.com',
        thirdParty: [
          { providerId: 'google', userId: 'g1' },
          { providerId: 'github', userId: 'g1' },
        ],
      },
    ],
  },
  // passwords
  { rule: 'password.type', severity: 'error', fires: [user({ password: BCRYPT })], nearMiss: [user()] },
  { rule: 'password.hash.missing', severity: 'error', fires: [pw('')], nearMiss: [pw(BCRYPT)] },
  { rule: 'password.algorithm.unknown', severity: 'error', fires: [pw(BCRYPT, 'md5')], nearMiss: [pw(BCRYPT, ' BCRYPT ')] },
  { rule: 'password.algorithm.mismatch', severity: 'error', fires: [pw(BCRYPT, 'argon2')], nearMiss: [pw(ARGON2, 'argon2')] },
  { rule: 'password.algorithm.mismatch', severity: 'error', fires: [pw(SCRYPT, 'bcrypt')], nearMiss: [pw(SCRYPT, 'firebase_scrypt')] },
  { rule: 'password.format.unknown', severity: 'error', fires: [pw('not-a-hash-format')], nearMiss: [pw(`bcrypt$${BCRYPT}`)] },
  { rule: 'password.format.unknown', severity: 'error', fires: [pw('abc123def')], nearMiss: [pw(`{bcrypt}${BCRYPT}`)] },
  // Hashes the core cannot take (legacy-rules.ts): errors under the default --unusable-hashes skip.
  { rule: 'password.unusable', severity: 'error', fires: [pw('pbkdf2_sha256$260000$abc$def')], nearMiss: [pw(`bcrypt$${BCRYPT}`)] },
  { rule: 'password.unusable', severity: 'error', fires: [pw('{SSHA}abcdef')], nearMiss: [pw(`{bcrypt}${BCRYPT}`)] },
  { rule: 'password.unusable', severity: 'error', fires: [pw('5f4dcc3b5aa765d61d8327deb882cf99')], nearMiss: [pw(BCRYPT)] },
  {
    rule: 'password.unusable',
    severity: 'error',
    fires: [{ id: 'u1', email: 'a@example.com', legacyPassword: { algorithm: 'md5', hash: '5f4dcc3b5aa765d61d8327deb882cf99' } }],
    nearMiss: [user()],
  },
  {
    rule: 'password.legacy.type',
    severity: 'error',
    fires: [{ id: 'u1', email: 'a@example.com', legacyPassword: { algorithm: 'md5' } }],
    nearMiss: [user()],
  },
  {
    rule: 'password.legacy.ignored',
    severity: 'warning',
    fires: [user({ legacyPassword: { algorithm: 'md5', hash: '5f4dcc3b5aa765d61d8327deb882cf99' } })],
    nearMiss: [user()],
  },
  { rule: 'password.prefix-stripped', severity: 'warning', fires: [pw(`{bcrypt}${BCRYPT}`)], nearMiss: [pw(BCRYPT)] },
  { rule: 'password.prefix-stripped', severity: 'warning', fires: [pw(`argon2${ARGON2}`)], nearMiss: [pw(ARGON2)] },
  // Django's bcrypt_sha256$ wraps a bcrypt of SHA-256(password): never stripped, an error.
  { rule: 'password.prefix.wrapped', severity: 'error', fires: [pw(`bcrypt_sha256$${BCRYPT}`)], nearMiss: [pw(`bcrypt$${BCRYPT}`)] },
  {
    rule: 'password.bcrypt.structure',
    severity: 'error',
    fires: [pw(BCRYPT.slice(0, -1))],
    nearMiss: [pw(BCRYPT.replace('$2a$', '$2y$'))],
  },
  {
    rule: 'password.bcrypt.structure',
    severity: 'error',
    fires: [pw(BCRYPT.replace('$2a$', '$2c$'))],
    nearMiss: [pw(BCRYPT.replace('$2a$', '$2b$'))],
  },
  {
    rule: 'password.bcrypt.cost',
    severity: 'error',
    fires: [pw(BCRYPT.replace('$05$', '$03$'))],
    nearMiss: [pw(BCRYPT.replace('$05$', '$04$'))],
  },
  {
    rule: 'password.bcrypt.cost',
    severity: 'error',
    fires: [pw(BCRYPT.replace('$05$', '$32$'))],
    nearMiss: [pw(BCRYPT.replace('$05$', '$31$'))],
  },
  { rule: 'password.bcrypt.2x', severity: 'warning', fires: [pw(BCRYPT.replace('$2a$', '$2x$'))], nearMiss: [pw(BCRYPT)] },
  {
    rule: 'password.argon2.variant',
    severity: 'error',
    fires: [pw(ARGON2.replace('argon2id', 'argon2x'))],
    nearMiss: [pw(ARGON2.replace('argon2id', 'argon2d'))],
  },
  { rule: 'password.argon2.version', severity: 'error', fires: [pw(ARGON2.replace('$v=19', ''))], nearMiss: [pw(ARGON2)] },
  { rule: 'password.argon2.version', severity: 'error', fires: [pw(ARGON2.replace('v=19', 'v=16'))], nearMiss: [pw(ARGON2)] },
  {
    rule: 'password.argon2.params',
    severity: 'error',
    fires: [pw(ARGON2.replace('t=2', 't=0'))],
    nearMiss: [pw(ARGON2.replace('t=2', 't=1'))],
  },
  {
    rule: 'password.argon2.params',
    severity: 'error',
    fires: [pw(ARGON2.replace('m=65536,t=2,p=1', 't=2,m=65536,p=1'))],
    nearMiss: [pw(ARGON2)],
  },
  { rule: 'password.argon2.base64', severity: 'error', fires: [pw(ARGON2.replace('c29tZXNhbHQ', 'c29tZX-hbHQ'))], nearMiss: [pw(ARGON2)] },
  {
    rule: 'password.argon2.padding',
    severity: 'warning',
    fires: [pw(ARGON2.replace('c29tZXNhbHQ', 'c29tZXNhbHQ='))],
    nearMiss: [pw(ARGON2)],
  },
  { rule: 'password.scrypt.parts', severity: 'error', fires: [pw(SCRYPT.replace('$s=Bw==', ''))], nearMiss: [pw(SCRYPT)] },
  {
    rule: 'password.scrypt.params',
    severity: 'error',
    fires: [pw(SCRYPT.replace('m=14', 'm=fourteen'))],
    nearMiss: [pw(SCRYPT.replace('$m=14$r=8$s=Bw==', '$s=Bw==$r=8$m=14'))],
  },
  {
    rule: 'password.scrypt.params',
    severity: 'error',
    fires: [pw(SCRYPT.replace('r=8', 'r=0'))],
    nearMiss: [pw(SCRYPT.replace('r=8', 'r=1'))],
  },
  {
    rule: 'password.scrypt.base64',
    severity: 'error',
    fires: [pw(scryptString(SCRYPT_USER1_HASH, '42xEC*ixf3L2lw=='))],
    nearMiss: [pw(SCRYPT)],
  },
  {
    rule: 'password.scrypt.base64-normalised',
    severity: 'warning',
    fires: [pw(scryptString(Buffer.from(SCRYPT_USER1_HASH, 'base64').toString('base64url'), '42xEC-ixf3L2lw'))],
    nearMiss: [pw(SCRYPT)],
  },
  { rule: 'password.scrypt.signer-key-length', severity: 'error', fires: [pw(SCRYPT)], nearMiss: [pw(SCRYPT)], signerKey: undefined },
  { rule: 'password.scrypt.non-ascii-risk', severity: 'warning', fires: [pw(SCRYPT)], nearMiss: [pw(BCRYPT)] },
  // TOTP
  {
    rule: 'totp.type',
    severity: 'error',
    fires: [user({ totp: { secret: TOTP_SECRET } })],
    nearMiss: [user({ totp: [{ secret: TOTP_SECRET }] })],
  },
  { rule: 'totp.secret.absent', severity: 'warning', fires: [totp({ secret: '' })], nearMiss: [totp({})] },
  { rule: 'totp.encoding', severity: 'error', fires: [totp({ encoding: 'base58' })], nearMiss: [totp({ encoding: 'base32' })] },
  {
    rule: 'totp.secret.encoding',
    severity: 'error',
    fires: [totp({ secret: 'GEZDGNBVGY3TQOJ1' })],
    nearMiss: [totp({ secret: 'gezd gnbv gy3t qojq' })],
  },
  {
    rule: 'totp.secret.encoding',
    severity: 'error',
    fires: [totp({ secret: TOTP_SECRET, encoding: 'hex' })],
    nearMiss: [totp({ secret: '3132333435363738393031323334353637383930', encoding: 'hex' })],
  },
  { rule: 'totp.secret.short', severity: 'error', fires: [totp({ secret: base32Of(9) })], nearMiss: [totp({ secret: base32Of(10) })] },
  { rule: 'totp.secret.weak', severity: 'warning', fires: [totp({ secret: base32Of(15) })], nearMiss: [totp({ secret: base32Of(16) })] },
  { rule: 'totp.period', severity: 'error', fires: [totp({ period: 0 })], nearMiss: [totp({ period: 60 })] },
  { rule: 'totp.period', severity: 'error', fires: [totp({ period: '30' })], nearMiss: [totp({ period: 30 })] },
  { rule: 'totp.skew', severity: 'error', fires: [totp({ skew: -1 })], nearMiss: [totp({ skew: 0 })] },
  {
    rule: 'totp.algorithm.unsupported',
    severity: 'error',
    fires: [totp({ algorithm: 'SHA256' })],
    nearMiss: [totp({ algorithm: 'sha1' })],
  },
  {
    rule: 'totp.algorithm.unsupported',
    severity: 'error',
    fires: [totp({ algorithm: 'SHA512' })],
    nearMiss: [totp({ algorithm: 'SHA-1' })],
  },
  { rule: 'totp.digits.unsupported', severity: 'error', fires: [totp({ digits: 8 })], nearMiss: [totp({ digits: 6 })] },
  {
    rule: 'totp.device-name.duplicate',
    severity: 'error',
    fires: [
      user({
        totp: [
          { secret: TOTP_SECRET, deviceName: 'phone' },
          { secret: TOTP_SECRET, deviceName: 'phone' },
        ],
      }),
    ],
    nearMiss: [
      user({
        totp: [
          { secret: TOTP_SECRET, deviceName: 'phone' },
          { secret: TOTP_SECRET, deviceName: 'laptop' },
        ],
      }),
    ],
  },
  // one-time-code factors and first factors
  {
    rule: 'otp.type',
    severity: 'error',
    fires: [user({ otpFactors: 'a@example.com' })],
    nearMiss: [user({ otpFactors: { email: 'a@example.com' } })],
  },
  {
    rule: 'otp.empty',
    severity: 'error',
    fires: [user({ otpFactors: {} })],
    nearMiss: [user({ otpFactors: { phoneNumber: '+14155550123' } })],
  },
  {
    rule: 'otp.conflict',
    severity: 'error',
    fires: [user({ otpFactors: { email: 'b@example.com' } }), user({ id: 'u2', email: 'b@example.com' })],
    nearMiss: [user({ otpFactors: { email: 'a@example.com' } }), user({ id: 'u2', email: 'b@example.com' })],
  },
  {
    rule: 'otp.conflict',
    severity: 'error',
    fires: [{ id: 'u2', phoneNumber: '+14155550123' }, user({ otpFactors: { phoneNumber: '+1 415 555 0123' } })],
    nearMiss: [{ id: 'u2', phoneNumber: '+14155550123' }, user({ otpFactors: { phoneNumber: '+14155550124' } })],
  },
  {
    rule: 'factors.no-first-factor',
    severity: 'error',
    fires: [{ id: 'u1', email: 'a@example.com', totp: [{ secret: TOTP_SECRET }] }],
    nearMiss: [totp({})],
  },
  {
    rule: 'factors.no-first-factor',
    severity: 'error',
    fires: [{ id: 'u1', otpFactors: { email: 'a@example.com' } }],
    nearMiss: [{ id: 'u1', phoneNumber: '+14155550123', otpFactors: { email: 'a@example.com' } }],
  },
  { rule: 'record.no-first-factor', severity: 'error', fires: [{ id: 'u1', email: 'a@example.com' }], nearMiss: [google('u1', 'g1')] },
  { rule: 'record.disabled', severity: 'warning', fires: [user({ disabled: true })], nearMiss: [user({ disabled: false })] },
];

// The signer-key-length case needs a short key to fire and the real key not to.
const signerCase = cases.find((c) => c.rule === 'password.scrypt.signer-key-length')!;

describe('validation rules', () => {
  it.each(cases.map((c, i) => [`${c.rule} #${i}`, c] as const))('%s fires, and its near miss passes', (_name, c) => {
    const key = c === signerCase ? 'AAAAAAAA' : c.signerKey;
    const fired = validate(c.fires, key).all.filter((p) => p.rule === c.rule);
    expect(fired.length).toBeGreaterThan(0);
    expect(fired.every((p) => p.severity === c.severity)).toBe(true);
    const quiet = validate(c.nearMiss, c === signerCase ? SIGNER_KEY : c.signerKey).all;
    expect(quiet.filter((p) => p.rule === c.rule)).toEqual([]);
    if (c.severity === 'error') {
      expect(validate(c.fires, key).results.some((r) => !r.valid) || validate(c.fires, key).late.length > 0).toBe(true);
    }
  });

  it('near misses are entirely valid (no errors at all), except where the case is about a warning elsewhere', () => {
    for (const c of cases) {
      const errors = validate(c.nearMiss, c === signerCase ? SIGNER_KEY : c.signerKey).all.filter((p) => p.severity === 'error');
      expect({ rule: c.rule, errors }).toEqual({ rule: c.rule, errors: [] });
    }
  });

  it('every message names the record, and no message contains a hash, a secret or a signer key', () => {
    const secrets = [BCRYPT, ARGON2, SCRYPT, SCRYPT_USER1_HASH, SIGNER_KEY, TOTP_SECRET, 'c29tZXNhbHQ', '42xEC'];
    for (const c of cases) {
      for (const p of validate(c.fires, c === signerCase ? 'AAAAAAAA' : c.signerKey).all) {
        expect(p.origin.file).toBe('users.json');
        expect(p.message.length).toBeGreaterThan(20);
        for (const s of secrets) expect(p.message).not.toContain(s);
        for (const s of secrets) expect(p.field ?? '').not.toContain(s);
      }
    }
  });
});

describe('field sizes', () => {
  it('a 30 MiB third-party user id is refused naming the record and field, and the record goes no further', () => {
    const problems = validate([
      { id: 'huge', email: 'h@example.com', thirdParty: [{ providerId: 'google', userId: 'x'.repeat(30 * 1024 * 1024) }] },
    ]).all;
    expect(problems.map((p) => [p.rule, p.sourceId, p.field])).toEqual([['field.too-long', 'huge', 'thirdParty[0].userId']]);
    expect(problems[0]!.message).toMatch(/is 31457280 characters; at most 256 can be stored/);
  });
});
