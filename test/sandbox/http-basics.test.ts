// The sandbox's cross-cutting answers on a real port: API key (401), cdi-version, 404/405/413, malformed
// JSON, licence (402 and /ee/license), all as plain-text errors or HTTP-200 JSON like the reference core.
import { describe, expect, it } from 'vitest';
import { JSON_TYPE, LICENSE, TEXT_TYPE, call, errorText, sandboxForFile } from '../support/sandbox.js';

const KEY1 = 'abcdefghijklmnopqrstuvwxyz-0123=';
const KEY2 = 'SECOND-key-with-20-chars-at-least';
const { sb, api } = sandboxForFile({ apiKeys: [KEY1, KEY2] }, { 'api-key': KEY1 });

describe('API key', () => {
  it('/hello needs no key and answers plain text', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const a = await call(sb.url, method, '/hello');
      expect([a.status, a.type, a.text]).toEqual([200, TEXT_TYPE, 'Hello\n']);
    }
  });

  it('a missing or wrong key gets 401 Invalid API key, also on /apiversion', async () => {
    for (const headers of [
      {},
      { 'api-key': 'wrong-key-wrong-key-wrong' },
      { 'api-key': KEY1 + 'x' },
      { authorization: 'Bearer nope' },
    ] as Record<string, string>[]) {
      const a = await call(sb.url, 'GET', '/apiversion', undefined, headers);
      expect([a.status, a.type, a.text]).toEqual([401, TEXT_TYPE, errorText('Invalid API key')]);
    }
    const signin = await call(sb.url, 'POST', '/recipe/signin', { email: 'a@b.c', password: 'x' });
    expect(signin.status).toBe(401);
  });

  it('accepts every configured key, from api-key or Authorization (Bearer or raw)', async () => {
    for (const headers of [
      { 'api-key': KEY1 },
      { 'api-key': ` ${KEY2} ` },
      { authorization: `Bearer ${KEY1}` },
      { authorization: `bearer ${KEY2}` },
      { authorization: KEY1 },
    ] as Record<string, string>[]) {
      const a = await call(sb.url, 'GET', '/apiversion', undefined, headers);
      expect(a.status).toBe(200);
    }
  });
});

describe('routing and bodies', () => {
  it('GET /apiversion lists 5.4 and has no status field', async () => {
    const a = await api.get('/apiversion');
    expect(a.type).toBe(JSON_TYPE);
    expect(a.text.endsWith('}\n')).toBe(true);
    expect(a.json.versions).toContain('5.4');
    expect(a.json).not.toHaveProperty('status');
  });

  it('unknown path 404, wrong method 405, malformed JSON 400, big body 413', async () => {
    expect([(await api.get('/recipe/nothing')).status, (await api.get('/recipe/nothing')).text]).toEqual([404, errorText('Not found')]);
    expect((await api.get('/nope')).status).toBe(404);
    const m = await api.get('/recipe/signin');
    expect([m.status, m.type, m.text]).toEqual([405, TEXT_TYPE, errorText('Method not supported')]);
    for (const bad of ['{bad', '[1,2]', '"str"', '']) {
      const a = await api.post('/recipe/signin', bad);
      expect([a.status, a.text]).toEqual([400, errorText('Invalid Json Input')]);
    }
    const big = await api.post('/recipe/signin', JSON.stringify({ email: 'x'.repeat((1 << 20) + 10), password: 'p' }));
    expect(big.status).toBe(413);
  });

  it('missing or mistyped fields get the InputParser texts', async () => {
    expect((await api.post('/recipe/signin', { password: 'x' })).text).toBe(errorText("Field name 'email' is invalid in JSON input"));
    expect((await api.post('/recipe/signin', { email: 5, password: 'x' })).text).toBe(
      errorText("Field name 'email' is invalid in JSON input"),
    );
    expect((await api.post('/recipe/signin', { email: null, password: 'x' })).status).toBe(400);
    expect((await api.get('/user/id')).text).toBe(errorText("Field name 'userId' is missing in GET request"));
  });

  it('the path is case-insensitive and /public is the default tenant', async () => {
    expect((await api.get('/APIVERSION')).status).toBe(200);
    expect((await api.post('/public/recipe/signin', { email: 'nobody@x.io', password: 'x' })).json).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
    expect((await api.post('/appid-public/public/recipe/signin', { email: 'nobody@x.io', password: 'x' })).json).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
  });
});

describe('cdi-version', () => {
  it('invalid, unsupported and exact-set checks', async () => {
    const body = { email: 'n@x.io', password: 'x' };
    expect((await api.post('/recipe/signin', body, { 'cdi-version': 'abc' })).text).toBe(errorText('cdi-version header is invalid'));
    expect((await api.post('/recipe/signin', body, { 'cdi-version': '9.9' })).text).toBe(errorText('cdi-version 9.9 not supported'));
    expect((await api.post('/recipe/signin', body, { 'cdi-version': '5.4.0' })).text).toBe(errorText('cdi-version 5.4.0 not supported'));
    expect((await api.post('/recipe/signin', body, { 'cdi-version': '5.4' })).status).toBe(200);
  });

  it('changes the user shape: webauthn from 5.3, account-linking shape from 4.0, flat before', async () => {
    const imported = await api.post('/recipe/user/passwordhash/import', {
      email: 'shape@x.io',
      passwordHash: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
    });
    const id = imported.json.user.id;
    expect(imported.json.user).toHaveProperty('webauthn', { credentialIds: [] });
    const v52 = await api.get(`/user/id?userId=${id}`, { 'cdi-version': '5.2' });
    expect(Object.keys(v52.json.user)).toEqual([
      'id',
      'isPrimaryUser',
      'tenantIds',
      'timeJoined',
      'emails',
      'phoneNumbers',
      'thirdParty',
      'loginMethods',
    ]);
    const v31 = await api.post('/recipe/signin', { email: 'shape@x.io', password: 'U*U' }, { 'cdi-version': '3.1' });
    expect(v31.json).toEqual({
      status: 'OK',
      user: { id, timeJoined: imported.json.user.timeJoined, tenantIds: ['public'], email: 'shape@x.io' },
    });
  });
});

describe('licence', () => {
  it('without a licence: 402 texts for TOTP import/verify and account linking, featureflag empty', async () => {
    expect((await api.get('/ee/license')).json).toEqual({ status: 'NO_LICENSE_KEY_FOUND_ERROR' });
    expect((await api.get('/ee/featureflag')).json).toMatchObject({ status: 'OK', features: [] });
    const mfa = 'MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.';
    const imp = await api.post('/recipe/totp/device/import', { userId: 'u1', skew: 1, period: 30, secretKey: 'GEZDGNBVGY3TQOJQ' });
    expect([imp.status, imp.type, imp.text]).toEqual([402, TEXT_TYPE, errorText(mfa)]);
    expect((await api.post('/recipe/totp/verify', { userId: 'u1', totp: '123456' })).text).toBe(errorText(mfa));
    // Validation comes before the licence check.
    expect((await api.post('/recipe/totp/device/import', { userId: '', skew: 1, period: 30, secretKey: 'A' })).text).toBe(
      errorText('userId cannot be empty'),
    );
    // The user lookup comes before the licence check.
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: 'nobody' })).text).toBe(
      errorText('Unknown user ID provided'),
    );
    const u = await api.post('/recipe/user/passwordhash/import', {
      email: 'lic@x.io',
      passwordHash: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
    });
    const al = 'Account linking feature is not enabled for this app. Please contact support to enable it.';
    const p = await api.post('/recipe/accountlinking/user/primary', { recipeUserId: u.json.user.id });
    expect([p.status, p.text]).toEqual([402, errorText(al)]);
    expect(
      (await api.post('/recipe/accountlinking/user/link', { recipeUserId: u.json.user.id, primaryUserId: u.json.user.id })).status,
    ).toBe(402);
    const mt = await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 't1' });
    expect([mt.status, mt.text]).toEqual([
      402,
      errorText("Cannot use feature: multi_tenancy, because the license key is missing, or doesn't have this feature enabled."),
    ]);
  });

  it('PUT /ee/license enables the paid features, DELETE removes them again', async () => {
    expect((await api.put('/ee/license', { licenseKey: '' })).json).toEqual({ status: 'INVALID_LICENSE_KEY_ERROR' });
    expect((await api.put('/ee/license', { licenseKey: LICENSE })).json).toEqual({ status: 'OK' });
    expect((await api.get('/ee/license')).json).toEqual({ status: 'OK', licenseKey: LICENSE });
    expect((await api.get('/ee/featureflag')).json.features.sort()).toEqual(['account_linking', 'mfa', 'multi_tenancy']);
    expect(
      (await api.post('/recipe/totp/device/import', { userId: 'u1', skew: 1, period: 30, secretKey: 'GEZDGNBVGY3TQOJQ' })).json,
    ).toEqual({
      status: 'OK',
      deviceName: 'TOTP Device 0',
    });
    expect((await api.del('/ee/license')).json).toEqual({ status: 'OK' });
    expect((await api.post('/recipe/totp/verify', { userId: 'u1', totp: '123456' })).status).toBe(402);
    expect((await api.get('/ee/featureflag')).json.features).toEqual([]);
  });
});
