// Conformance: which login methods a tenant allows, as the reference core decides it.
// Follows supertokens-core TenantConfig.toJson_v2_5_1 (firstFactors spelled out when a recipe is disabled) and
// BaseCreateOrUpdate (a tenant created through the v2 API with no firstFactors has every recipe disabled; seen on
// a running reference core: `PUT /recipe/multitenancy/tenant/v2 {"tenantId":"t1"}` then an email-password import
// answers 403 "Email password login not enabled for tenant").
import { describe, expect, it } from 'vitest';
import { BCRYPT, LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE });

describe('tenant login methods (TenantConfig.toJson_v2_5_1)', () => {
  it('a v2 tenant created with its id alone refuses every login method with the 403 texts', async () => {
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'bare' })).json).toEqual({ status: 'OK', createdNew: true });
    expect((await api.get('/bare/recipe/multitenancy/tenant/v2')).json).toEqual({
      status: 'OK',
      tenantId: 'bare',
      thirdParty: { providers: [] },
      firstFactors: [],
      coreConfig: {},
    });
    const ep = await api.post('/bare/recipe/user/passwordhash/import', { email: 'a@x.io', passwordHash: BCRYPT });
    expect([ep.status, ep.text]).toEqual([403, errorText('Email password login not enabled for tenant')]);
    const pl = await api.post('/bare/recipe/signinup/code', { email: 'a@x.io' });
    expect([pl.status, pl.text]).toEqual([403, errorText('Passwordless login not enabled for tenant')]);
  });

  it('naming firstFactors enables the recipes; GET v2 lists them as given', async () => {
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'bare', firstFactors: ['emailpassword'] })).json).toEqual({
      status: 'OK',
      createdNew: false,
    });
    expect((await api.get('/bare/recipe/multitenancy/tenant/v2')).json).toMatchObject({ firstFactors: ['emailpassword'] });
    expect((await api.post('/bare/recipe/user/passwordhash/import', { email: 'a@x.io', passwordHash: BCRYPT })).json).toMatchObject({
      status: 'OK',
      didUserAlreadyExist: false,
    });
  });

  it('the public tenant allows everything: GET v2 has no firstFactors', async () => {
    const pub = (await api.get('/recipe/multitenancy/tenant/v2')).json;
    expect(pub).toEqual({ status: 'OK', tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} });
  });

  it('the v1 API disables one recipe; GET v2 spells out the factors of the others', async () => {
    await api.put('/recipe/multitenancy/tenant', { tenantId: 'noep', emailPasswordEnabled: false });
    expect((await api.get('/noep/recipe/multitenancy/tenant/v2')).json.firstFactors).toEqual([
      'thirdparty',
      'otp-email',
      'otp-phone',
      'link-email',
      'link-phone',
    ]);
  });
});

describe('tenant-scoped answers (issue 9, point 4)', () => {
  it('an unknown app is reported through its tenant (PathRouterTest: "Tenant with the following ...")', async () => {
    const r = await api.get('/appid-nosuchapp/users');
    expect([r.status, r.text]).toEqual([
      400,
      errorText(
        'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, nosuchapp, public)',
      ),
    ]);
  });

  it('/users/count?includeAllTenants=true: 403 on a tenant path (AuthRecipe.getUsersCount), the app-wide count on public', async () => {
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'counted', firstFactors: ['emailpassword'] });
    await api.post('/counted/recipe/user/passwordhash/import', { email: 'c1@x.io', passwordHash: BCRYPT });
    const r = await api.get('/counted/users/count?includeAllTenants=true');
    expect([r.status, r.text]).toEqual([403, errorText('Only public tenantId can query across tenants')]);
    // Every user here belongs to one tenant: the app-wide count is the sum over the tenants.
    const tenants = (await api.get('/recipe/multitenancy/tenant/list/v2')).json.tenants as Array<{ tenantId: string }>;
    let sum = 0;
    for (const t of tenants)
      sum += (await api.get(t.tenantId === 'public' ? '/users/count' : `/${t.tenantId}/users/count`)).json.count as number;
    expect(sum).toBeGreaterThan((await api.get('/counted/users/count')).json.count as number);
    expect((await api.get('/users/count?includeAllTenants=TRUE')).json.count).toBe(sum);
  });
});
