// Table-driven tests of the planner's ordering rules.
import { describe, expect, it } from 'vitest';
import { planUserSteps, PlanError } from '../../../src/engine/plan/plan.js';
import { callCount, describeStep } from '../../../src/engine/strategies/steps/rules.js';
import type { CanonicalUser } from '../../../src/records/types.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const SCRYPT =
  '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

const cases: Array<{ name: string; user: CanonicalUser; options?: Parameters<typeof planUserSteps>[1]; keys: string[] }> = [
  { name: 'password only', user: { id: 'u1', email: 'a@x.io', password: { hash: BCRYPT } }, keys: ['password'] },
  {
    name: 'password + external id + totp: map right after the first factor, totp under it',
    user: { id: 'u1', email: 'a@x.io', externalUserId: 'ext-1', password: { hash: BCRYPT }, totp: [{ secret: SECRET }] },
    keys: ['password', 'map', 'totp:TOTP Device 0'],
  },
  {
    name: 'keep-source-ids maps the source id',
    user: { id: 'u1', email: 'a@x.io', password: { hash: BCRYPT } },
    options: { keepSourceIds: true },
    keys: ['password', 'map'],
  },
  {
    name: 'password + two social logins: first is primary, others linked after',
    user: {
      id: 'u1',
      email: 'a@x.io',
      password: { hash: BCRYPT },
      thirdParty: [
        { providerId: 'google', userId: 'g1' },
        { providerId: 'github', userId: 'h1' },
      ],
    },
    keys: ['password', 'thirdparty:google:g1', 'thirdparty:github:h1', 'primary', 'link:thirdparty:google:g1', 'link:thirdparty:github:h1'],
  },
  {
    name: 'social first, external id before the second login',
    user: {
      id: 'u1',
      externalUserId: 'e',
      thirdParty: [{ providerId: 'google', userId: 'g', email: 'g@x.io' }],
      phoneNumber: '+14155550100',
    },
    keys: ['thirdparty:google:g', 'map', 'phone', 'primary', 'link:phone'],
  },
  {
    name: 'email + sms factors: one passwordless user with both contacts, then primary, then link',
    user: { id: 'u1', email: 'a@x.io', password: { hash: BCRYPT }, otpFactors: { email: 'a@x.io', phoneNumber: '+14155550101' } },
    keys: ['password', 'otp', 'otp-contact', 'primary', 'link:otp'],
  },
  {
    name: 'sms factor only',
    user: { id: 'u1', email: 'a@x.io', password: { hash: BCRYPT }, otpFactors: { phoneNumber: '+14155550101' } },
    keys: ['password', 'otp', 'primary', 'link:otp'],
  },
  {
    name: 'sms factor on the phone sign-in number reuses that user; no link',
    user: { id: 'u1', phoneNumber: '+14155550101', otpFactors: { phoneNumber: '+14155550101' } },
    keys: ['phone'],
  },
  {
    name: 'unnamed devices get the names the core would give, skipping names in use',
    user: {
      id: 'u1',
      email: 'a@x.io',
      password: { hash: BCRYPT },
      totp: [{ secret: SECRET }, { secret: SECRET, deviceName: 'TOTP Device 1' }, { secret: SECRET }],
    },
    keys: ['password', 'totp:TOTP Device 0', 'totp:TOTP Device 1', 'totp:TOTP Device 2'],
  },
  {
    name: 'password with a verified source email: verify-email right after the import',
    user: { id: 'u1', email: 'A@x.io', emailVerified: true, password: { hash: BCRYPT } },
    keys: ['password', 'verify-email:password'],
  },
  {
    name: 'verified email + external id: verify-email after the mapping (it uses the external id), before totp',
    user: {
      id: 'u1',
      email: 'a@x.io',
      emailVerified: true,
      externalUserId: 'ext-1',
      password: { hash: BCRYPT },
      totp: [{ secret: SECRET }],
    },
    keys: ['password', 'map', 'verify-email:password', 'totp:TOTP Device 0'],
  },
  {
    name: 'unverified or unknown source email: no verify-email step',
    user: { id: 'u1', email: 'a@x.io', emailVerified: false, password: { hash: BCRYPT } },
    keys: ['password'],
  },
  {
    name: 'verified email, password and a social login: verify-email for the password only (sign-in-up sends isVerified)',
    user: {
      id: 'u1',
      email: 'a@x.io',
      emailVerified: true,
      password: { hash: BCRYPT },
      thirdParty: [{ providerId: 'google', userId: 'g1' }],
    },
    keys: ['password', 'verify-email:password', 'thirdparty:google:g1', 'primary', 'link:thirdparty:google:g1'],
  },
  {
    name: 'verified email on an email factor: its consume verifies it, no extra step',
    user: {
      id: 'u1',
      email: 'a@x.io',
      emailVerified: true,
      thirdParty: [{ providerId: 'google', userId: 'g' }],
      otpFactors: { email: 'a@x.io' },
    },
    keys: ['thirdparty:google:g', 'otp', 'primary', 'link:otp'],
  },
  {
    name: 'the record email added to the phone sign-in user (PUT leaves it unverified) gets verify-email',
    user: {
      id: 'u1',
      email: 'a@x.io',
      emailVerified: true,
      phoneNumber: '+14155550101',
      otpFactors: { email: 'A@x.io', phoneNumber: '+14155550101' },
    },
    keys: ['phone', 'otp-contact', 'verify-email:phone'],
  },
  {
    name: 'another email added to the phone sign-in user: the source says nothing of it, no verify-email',
    user: {
      id: 'u1',
      email: 'a@x.io',
      emailVerified: true,
      phoneNumber: '+14155550101',
      otpFactors: { email: 'b@x.io', phoneNumber: '+14155550101' },
    },
    keys: ['phone', 'otp-contact'],
  },
];

describe('planUserSteps', () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(planUserSteps(c.user, c.options).map((s) => s.key)).toEqual(c.keys);
    });
  }

  it('primary always comes before every link', () => {
    for (const c of cases) {
      const keys = planUserSteps(c.user, c.options).map((s) => s.key);
      const primary = keys.indexOf('primary');
      for (const [i, k] of keys.entries()) if (k.startsWith('link:')) expect(i).toBeGreaterThan(primary);
    }
  });

  it('sends external_scrypt by default and the configured name otherwise', () => {
    const user: CanonicalUser = { id: 'u', email: 'a@x.io', password: { hash: SCRYPT } };
    expect(planUserSteps(user)[0]).toMatchObject({ kind: 'import-password', hashingAlgorithm: 'external_scrypt' });
    expect(planUserSteps(user, { scryptAlgorithmName: 'firebase_scrypt' })[0]).toMatchObject({ hashingAlgorithm: 'firebase_scrypt' });
    expect(planUserSteps({ ...user, password: { hash: BCRYPT } })[0]).toMatchObject({ hashingAlgorithm: 'bcrypt' });
  });

  it('converts TOTP secrets to base32 and keeps period and skew', () => {
    const hex = Buffer.from('12345678901234567890').toString('hex');
    const [, step] = planUserSteps({
      id: 'u',
      email: 'a@x.io',
      password: { hash: BCRYPT },
      totp: [{ secret: hex, encoding: 'hex', period: 60, skew: 0, deviceName: 'phone' }],
    });
    expect(step).toMatchObject({ kind: 'import-totp', secretKey: SECRET, period: 60, skew: 0, deviceName: 'phone', user: 'password' });
  });

  it('third-party verification defaults to the record when the login shares its email', () => {
    const steps = planUserSteps({ id: 'u', email: 'a@x.io', emailVerified: true, thirdParty: [{ providerId: 'google', userId: 'g' }] });
    expect(steps[0]).toMatchObject({ email: 'a@x.io', isVerified: true });
  });

  it('a verify-email step names the login method and the email as given, and costs two calls', () => {
    const steps = planUserSteps({ id: 'u', email: 'A@x.io', emailVerified: true, password: { hash: BCRYPT } });
    expect(steps[1]).toEqual({
      kind: 'verify-email',
      key: 'verify-email:password',
      user: 'password',
      recipeId: 'emailpassword',
      email: 'A@x.io',
    });
    expect(callCount(steps[1]!)).toBe(2);
    expect(describeStep(steps[1]!)).toContain('POST /recipe/user/email/verify/token, POST /recipe/user/email/verify');
    const phone = planUserSteps({
      id: 'u',
      email: 'a@x.io',
      emailVerified: true,
      phoneNumber: '+14155550101',
      otpFactors: { email: 'a@x.io', phoneNumber: '+14155550101' },
    });
    expect(phone.at(-1)).toMatchObject({ kind: 'verify-email', user: 'phone', recipeId: 'passwordless' });
    expect(planUserSteps({ id: 'u', email: 'a@x.io', password: { hash: BCRYPT } }).some((s) => s.kind === 'verify-email')).toBe(false);
  });

  it('refuses records it cannot plan', () => {
    expect(() => planUserSteps({ id: 'u', totp: [{ secret: SECRET }] })).toThrow(PlanError);
    expect(() => planUserSteps({ id: 'u', password: { hash: BCRYPT } })).toThrow(/needs an email/);
    expect(() => planUserSteps({ id: 'u', email: 'a@x.io', password: { hash: 'plain' } })).toThrow(/not recognised/);
  });

  it('describes steps without secrets and counts calls', () => {
    const steps = planUserSteps({
      id: 'u',
      email: 'a@x.io',
      password: { hash: BCRYPT },
      totp: [{ secret: SECRET }],
      otpFactors: { email: 'a@x.io' },
    });
    const text = steps.map(describeStep).join('\n');
    expect(text).not.toContain(BCRYPT);
    expect(text).not.toContain(SECRET);
    // import: lookup + import; otp factor: lookup, create code, consume; primary; link; TOTP import.
    expect(steps.reduce((n, s) => n + callCount(s), 0)).toBe(2 + 3 + 1 + 1 + 1);
  });
});
