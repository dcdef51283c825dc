// A user imported through POST /bulk-import/import is indistinguishable from the same user imported step by step
// through the per-recipe endpoints (hash import, third-party sign-in-up, primary and link, external id, email
// verification, TOTP import, metadata, role), except that each login method keeps its own timeJoined.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { BCRYPT, LICENSE, client, startTestSandbox } from '../support/sandbox.js';

const SECRET = 'JBSWY3DPEHPK3PXP';

describe('bulk import = the steps', () => {
  let sb: RunningSandbox;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await startTestSandbox({ licenseKey: LICENSE, bulkImportIntervalSec: 3600 });
    c = client(sb);
    await c.put('/recipe/role', { role: 'member' });
  });
  afterAll(() => sb.stop());

  async function bySteps(): Promise<void> {
    const ep = await c.post('/recipe/user/passwordhash/import', { email: 'steps@x.io', passwordHash: BCRYPT });
    const epId: string = ep.json.user.id;
    const tp = await c.post('/recipe/signinup', {
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-steps',
      email: { id: 'steps@x.io', isVerified: true },
    });
    expect((await c.post('/recipe/accountlinking/user/primary', { recipeUserId: epId })).json.status).toBe('OK');
    expect((await c.post('/recipe/accountlinking/user/link', { recipeUserId: tp.json.user.id, primaryUserId: epId })).json.status).toBe(
      'OK',
    );
    expect((await c.post('/recipe/userid/map', { superTokensUserId: epId, externalUserId: 'ext-steps' })).json.status).toBe('OK');
    const token = await c.post('/recipe/user/email/verify/token', { userId: 'ext-steps', email: 'steps@x.io' });
    expect((await c.post('/recipe/user/email/verify', { method: 'token', token: token.json.token })).json.status).toBe('OK');
    const totp = { userId: 'ext-steps', secretKey: SECRET, period: 30, skew: 1, deviceName: 'phone' };
    expect((await c.post('/recipe/totp/device/import', totp)).json.status).toBe('OK');
    expect((await c.put('/recipe/user/metadata', { userId: 'ext-steps', metadataUpdate: { plan: 'pro' } })).json.status).toBe('OK');
    expect((await c.put('/recipe/user/role', { userId: 'ext-steps', role: 'member' })).json.status).toBe('OK');
  }

  async function byBulk(): Promise<void> {
    const a = await c.post('/bulk-import/import', {
      externalUserId: 'ext-bulk',
      userMetadata: { plan: 'pro' },
      userRoles: [{ role: 'member', tenantIds: ['public'] }],
      totpDevices: [{ secretKey: SECRET, deviceName: 'phone' }],
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'bulk@x.io',
          passwordHash: BCRYPT,
          hashingAlgorithm: 'bcrypt',
          isPrimary: true,
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_100_000_000_000,
        },
        {
          recipeId: 'thirdparty',
          email: 'bulk@x.io',
          thirdPartyId: 'google',
          thirdPartyUserId: 'g-bulk',
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1_200_000_000_000,
        },
      ],
    });
    expect(a.status).toBe(200);
  }

  /** What GET /user/id and the recipes show of a user, with the parts that must differ (ids, emails, times) named. */
  async function seen(ext: string, email: string, tpUser: string) {
    const user = (await c.get(`/user/id?userId=${ext}`)).json.user;
    const text = JSON.stringify(user).replaceAll(ext, '<ext>').replaceAll(email, '<email>').replaceAll(tpUser, '<tp>');
    const shape = JSON.parse(text);
    const times = shape.loginMethods.map((m: { timeJoined: number }) => m.timeJoined);
    shape.timeJoined = 0;
    for (const m of shape.loginMethods) {
      m.timeJoined = 0;
      if (m.recipeUserId !== '<ext>') m.recipeUserId = '<tp-id>';
    }
    return {
      shape,
      times,
      signIn: (await c.post('/recipe/signin', { email, password: 'U*U' })).json.user?.id,
      devices: (await c.get(`/recipe/totp/device/list?userId=${ext}`)).json,
      metadata: (await c.get(`/recipe/user/metadata?userId=${ext}`)).json,
      roles: (await c.get(`/recipe/user/roles?userId=${ext}`)).json,
      verified: (await c.get(`/recipe/user/email/verify?userId=${ext}&email=${encodeURIComponent(email)}`)).json,
    };
  }

  it('shows the same user, login methods, sign-in, TOTP, metadata, roles and verification', async () => {
    await bySteps();
    await byBulk();
    const steps = await seen('ext-steps', 'steps@x.io', 'g-steps');
    const bulk = await seen('ext-bulk', 'bulk@x.io', 'g-bulk');
    const { times: stepTimes, signIn: stepSignIn, ...stepRest } = steps;
    const { times: bulkTimes, signIn: bulkSignIn, ...bulkRest } = bulk;
    expect(bulkRest).toEqual(stepRest);
    expect([stepSignIn, bulkSignIn]).toEqual(['ext-steps', 'ext-bulk']);
    // The one difference: the bulk user's login methods keep the source's join dates.
    expect(bulkTimes).toEqual([1_100_000_000_000, 1_200_000_000_000]);
    expect(stepTimes.every((t: number) => t > 1_700_000_000_000)).toBe(true);
  });
});
