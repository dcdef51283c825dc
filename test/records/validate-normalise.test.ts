// The validator's output is the normalised record the planner imports, and cross-record problems name both records.
import { describe, expect, it } from 'vitest';
import { createValidator, originKey } from '../../src/records/validate.js';
import { formatProblem } from '../../src/records/types.js';
import { ARGON2, BCRYPT, SCRYPT, SCRYPT_USER1_HASH, TOTP_SECRET, scryptString } from '../support/vectors.js';

const add = (record: Record<string, unknown>, validator = createValidator(), line = 1) =>
  validator.add({ record: record as never, origin: { file: 'users.ndjson', line }, problems: [] });

describe('normalised records', () => {
  it('trims and lower-cases emails everywhere, and writes phones in E.164', () => {
    const { record, valid } = add({
      id: ' u1 ',
      email: '  Ann@Example.COM ',
      password: { hash: BCRYPT },
      phoneNumber: '+1 (415) 555-0123',
      thirdParty: [
        { providerId: 'google', userId: 'g1', email: 'ANN@gmail.com', emailVerified: true },
        { providerId: 'github', userId: '7' },
      ],
      otpFactors: { email: ' Ann@Example.com', phoneNumber: '+44 20-7946-0958' },
    });
    expect(valid).toBe(true);
    expect(record.id).toBe('u1');
    expect(record.email).toBe('ann@example.com');
    expect(record.phoneNumber).toBe('+14155550123');
    expect(record.thirdParty).toEqual([
      { providerId: 'google', userId: 'g1', email: 'ann@gmail.com', emailVerified: true },
      { providerId: 'github', userId: '7', email: 'ann@example.com' },
    ]);
    expect(record.otpFactors).toEqual({ email: 'ann@example.com', phoneNumber: '+442079460958' });
  });

  it.each([
    [`{bcrypt}${BCRYPT}`, BCRYPT, 'bcrypt'],
    [`bcrypt$${BCRYPT}`, BCRYPT, 'bcrypt'],
    [`argon2${ARGON2}`, ARGON2, 'argon2'],
    [ARGON2.replace('c29tZXNhbHQ', 'c29tZXNhbHQ='), ARGON2, 'argon2'],
    [scryptString(Buffer.from(SCRYPT_USER1_HASH, 'base64').toString('base64url'), '42xEC-ixf3L2lw'), SCRYPT, 'external_scrypt'],
    [SCRYPT.replace('$m=14$r=8$s=Bw==', '$s=Bw$r=8$m=14'), SCRYPT, 'external_scrypt'],
  ])('hash %s becomes the bare standard string with its algorithm', (input, hash, algorithm) => {
    const { record, valid } = add({ id: 'u1', email: 'a@example.com', password: { hash: input } });
    expect(valid).toBe(true);
    expect(record.password).toEqual({ hash, algorithm });
  });

  it('fills TOTP defaults and keeps device names', () => {
    const { record } = add({
      id: 'u1',
      email: 'a@example.com',
      password: { hash: BCRYPT },
      totp: [
        { secret: TOTP_SECRET, deviceName: ' phone ' },
        { secret: '3132333435363738393031323334353637383930', encoding: 'hex', period: 60, skew: 0 },
      ],
    });
    expect(record.totp).toEqual([
      { secret: TOTP_SECRET, encoding: 'base32', period: 30, skew: 1, deviceName: 'phone' },
      { secret: '3132333435363738393031323334353637383930', encoding: 'hex', period: 60, skew: 0 },
    ]);
  });

  it('keeps the reader problems first and lets a reader error make the record invalid', () => {
    const validator = createValidator();
    const readerProblem = {
      severity: 'error' as const,
      rule: 'reader.type',
      origin: { file: 'f', line: 3 },
      message: 'emailVerified must be a boolean',
    };
    const result = validator.add({
      record: { id: 'u1', email: 'a@example.com', password: { hash: BCRYPT } },
      origin: { file: 'f', line: 3 },
      problems: [readerProblem],
    });
    expect(result.problems[0]).toBe(readerProblem);
    expect(result.valid).toBe(false);
  });

  it('does not add "no first factor" when the reader already refused the first-factor field', () => {
    const validator = createValidator();
    const readerProblem = {
      severity: 'error' as const,
      rule: 'reader.type',
      origin: { file: 'f', index: 0 },
      field: 'thirdParty',
      message: 'thirdParty must be an array',
    };
    const refused = validator.add({
      record: { id: 'u1', email: 'a@example.com' },
      origin: { file: 'f', index: 0 },
      problems: [readerProblem],
    });
    expect(refused.problems.map((p) => p.rule)).toEqual(['reader.type']);
    const plain = validator.add({ record: { id: 'u2', email: 'b@example.com' }, origin: { file: 'f', index: 1 }, problems: [] });
    expect(plain.problems.map((p) => p.rule)).toEqual(['record.no-first-factor']);
  });

  it('an error on one record never stops the next', () => {
    const validator = createValidator();
    const bad = add({ id: 'u1', email: 'nope', password: { hash: 'garbage' } }, validator, 1);
    const good = add({ id: 'u2', email: 'b@example.com', password: { hash: BCRYPT } }, validator, 2);
    expect(bad.valid).toBe(false);
    expect(bad.problems.map((p) => p.rule).sort()).toEqual(['email.syntax', 'password.format.unknown']);
    expect(good.valid).toBe(true);
    expect(good.problems).toEqual([]);
  });
});

describe('cross-record problems', () => {
  it('flag the later record at once and the earlier one at finish, each naming the other', () => {
    const validator = createValidator();
    const first = add({ id: 'u1', email: 'a@example.com', password: { hash: BCRYPT } }, validator, 1);
    const second = add({ id: 'u2', email: 'A@example.com', password: { hash: ARGON2 } }, validator, 7);
    const third = add({ id: 'u3', email: 'a@example.com ', password: { hash: BCRYPT } }, validator, 9);
    expect(first.valid).toBe(true);
    expect(second.valid).toBe(false);
    expect(third.valid).toBe(false);
    expect(formatProblem(second.problems[0]!)).toBe(
      'error: users.ndjson:7 (id u2) email: the email (of a user with a password) is also used by users.ndjson:1 (id u1); it must be unique: fix or remove one of the two records',
    );
    const late = [...validator.finish()];
    // One late problem for the first record, however many records repeat it.
    expect(late.map(formatProblem)).toEqual([
      'error: users.ndjson:1 (id u1) email: the email (of a user with a password) is also used by users.ndjson:7 (id u2); it must be unique: fix or remove one of the two records',
    ]);
    expect(originKey(late[0]!.origin)).toBe(originKey(first.origin));
    expect(validator.lateInvalidated()).toBe(1);
  });

  it('a late problem on a record that was already invalid is not counted twice', () => {
    const validator = createValidator();
    add({ id: 'u1', email: 'bad', otpFactors: {} }, validator, 1);
    add({ id: 'u1', email: 'b@example.com', password: { hash: BCRYPT } }, validator, 2);
    expect([...validator.finish()].map((p) => p.rule)).toEqual(['id.duplicate']);
    expect(validator.lateInvalidated()).toBe(0);
  });

  it('finds duplicate password emails even when a non-password user had the email first', () => {
    const validator = createValidator();
    const google = add({ id: 'g', email: 'a@example.com', thirdParty: [{ providerId: 'google', userId: 'g1' }] }, validator, 1);
    const first = add({ id: 'p1', email: 'a@example.com', password: { hash: BCRYPT } }, validator, 2);
    const second = add({ id: 'p2', email: 'A@example.com', password: { hash: BCRYPT } }, validator, 3);
    expect([google.valid, first.valid, second.valid]).toEqual([true, true, false]);
    expect(second.problems[0]!.message).toContain('users.ndjson:2 (id p1)');
    expect([...validator.finish()].map((p) => [p.sourceId, p.rule])).toEqual([['p1', 'email.duplicate']]);
  });

  it('a user may use its own email for its one-time codes', () => {
    const validator = createValidator();
    const r = add({ id: 'u1', email: 'a@example.com', password: { hash: BCRYPT }, otpFactors: { email: 'a@example.com' } }, validator);
    expect(r.valid).toBe(true);
    expect([...validator.finish()]).toEqual([]);
  });

  it('origins of earlier records come back exactly (file, line or index)', () => {
    const validator = createValidator();
    validator.add({
      record: { id: 'x', email: 'a@example.com', password: { hash: BCRYPT } },
      origin: { file: 'a.json', index: 4096 },
      problems: [],
    });
    validator.add({ record: { id: 'x', phoneNumber: '+14155550123' }, origin: { file: 'b.ndjson', line: 123456 }, problems: [] });
    validator.add({ record: { id: 'x', phoneNumber: '+14155550124' }, origin: { file: 'c.csv' }, problems: [] });
    const late = [...validator.finish()];
    expect(late.map((p) => p.origin)).toEqual([{ file: 'a.json', index: 4096 }]);
    expect(late[0]!.message).toContain('b.ndjson:123456');
  });
});
