// The bulk plan (issue 11): one canonical record -> one bulk-import user, as the reference core's
// BulkImportUserUtils reads it; the sandbox's own parser (the reference's schema) accepts every body built here.
import { describe, expect, it } from 'vitest';
import { maskBulkUser, planBulkUser } from '../../../../src/engine/strategies/bulk/plan.js';
import { PlanError } from '../../../../src/engine/plan/plan.js';
import { parseBulkUser, type SchemaEnv } from '../../../../src/sandbox/bulk/schema.js';
import type { CanonicalUser } from '../../../../src/records/types.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const env = (roles: string[] = []): SchemaEnv => ({
  roles: new Set(roles),
  tenants: new Set(['public', 'eu']),
  multitenancy: true,
  mfa: true,
  accountLinking: true,
  now: Date.UTC(2030, 0, 1),
  externalIds: new Set(),
});

describe('planBulkUser', () => {
  it('every first factor a login method, the first primary, join date and verified flags on each', () => {
    const record: CanonicalUser = {
      id: 'u1',
      email: 'Ada@Example.test',
      emailVerified: true,
      password: { hash: BCRYPT },
      thirdParty: [{ providerId: 'google', userId: 'g1' }],
      phoneNumber: '+14155550100',
      otpFactors: { phoneNumber: '+14155550100', email: 'mfa@example.test' },
      timeJoined: 1_500_000_000_000,
      externalUserId: 'ext-1',
      metadata: { plan: 'gold' },
      roles: ['admin', { role: 'editor', tenantIds: ['eu'] }],
      totp: [{ secret: 'JBSWY3DPEHPK3PXP' }, { secret: '48656c6c6f21deadbeef', encoding: 'hex', deviceName: 'phone' }],
    };
    const body = planBulkUser(record, {});
    expect(body.loginMethods.map((m) => [m.recipeId, m.isPrimary ?? false, m.isVerified, m.timeJoinedInMSSinceEpoch])).toEqual([
      ['emailpassword', true, true, 1_500_000_000_000],
      ['thirdparty', false, true, 1_500_000_000_000],
      ['passwordless', false, true, 1_500_000_000_000],
    ]);
    // The hex secret is the same bytes as the base32 one; the SMS factor is the phone sign-in's own method: it gets the factor's email, no fourth method.
    expect(body.loginMethods[2]).toMatchObject({ phoneNumber: '+14155550100', email: 'mfa@example.test' });
    expect(body.loginMethods[0]).toMatchObject({ hashingAlgorithm: 'bcrypt', passwordHash: BCRYPT });
    expect(body.externalUserId).toBe('ext-1');
    expect(body.userMetadata).toEqual({ plan: 'gold' });
    expect(body.userRoles).toEqual([
      { role: 'admin', tenantIds: ['public'] },
      { role: 'editor', tenantIds: ['eu'] },
    ]);
    expect(body.totpDevices).toEqual([
      { secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1, deviceName: 'TOTP Device 0' },
      { secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1, deviceName: 'phone' },
    ]);
    const masked = JSON.stringify(maskBulkUser(body));
    expect(masked).not.toContain(BCRYPT);
    expect(masked).not.toContain('JBSWY3DP');
    // The reference's schema takes it (the roles exist; the user role's tenant is one of its login methods' only
    // when the methods are there too, so the eu role is checked on a body placed in eu).
    const parsed = parseBulkUser(env(['admin', 'editor']), planBulkUser({ ...record, roles: ['admin'] }, {}) as never, 'GENERATE');
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
  });

  it('one login method is not primary; the one-time-code factor of another contact is a passwordless method of its own', () => {
    expect(planBulkUser({ id: 'a', email: 'a@example.test', password: { hash: BCRYPT } }).loginMethods[0]!.isPrimary).toBeUndefined();
    const body = planBulkUser({ id: 'b', email: 'b@example.test', password: { hash: BCRYPT }, otpFactors: { email: 'b2@example.test' } });
    expect(body.loginMethods.map((m) => m.recipeId)).toEqual(['emailpassword', 'passwordless']);
    expect(body.loginMethods[0]!.isPrimary).toBe(true);
    expect(body.loginMethods[0]!.timeJoinedInMSSinceEpoch).toBeUndefined();
    expect(parseBulkUser(env(), body as never, 'GENERATE').ok).toBe(true);
  });

  it('the run tenant on every login method and bare role; keep-source-ids; scrypt as firebase_scrypt; no first factor is a PlanError', () => {
    const body = planBulkUser(
      { id: 's1', email: 's@example.test', thirdParty: [{ providerId: 'github', userId: '7' }], roles: ['r'] },
      {
        tenantId: 'eu',
        keepSourceIds: true,
      },
    );
    expect(body.loginMethods[0]!.tenantIds).toEqual(['eu']);
    expect(body.userRoles).toEqual([{ role: 'r', tenantIds: ['eu'] }]);
    expect(body.externalUserId).toBe('s1');
    expect(parseBulkUser(env(['r']), body as never, 'GENERATE').ok).toBe(true);
    expect(() => planBulkUser({ id: 'x', email: 'x@example.test' })).toThrow(PlanError);
  });
});
