// Conformance: TOTP device list, verify and remove, ported from supertokens-core
// src/test/java/io/supertokens/test/totp/api/GetTotpDevicesAPITest.java (testApi) and TotpUserIdMappingTest.java
// (the device rename of that test is left out: the sandbox cannot rename devices, docs/sandbox.md).
import { describe, expect, it } from 'vitest';
import { totpAt } from '../../../src/shared/totp-code.js';
import { LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE });

const step = (offset = 0) => Math.floor(Date.now() / 30_000) + offset;

describe('GetTotpDevicesAPITest', () => {
  it('testApi: missing and empty userId; the created device listed unverified; an unknown user has none', async () => {
    expect((await api.post('/recipe/totp/device', { userId: 'user-id', deviceName: 'device-name', skew: 0, period: 30 })).json.status).toBe(
      'OK',
    );
    expect((await api.get('/recipe/totp/device/list')).text).toBe(errorText("Field name 'userId' is missing in GET request"));
    expect((await api.get('/recipe/totp/device/list?userId=')).text).toBe(errorText('userId cannot be empty'));
    expect((await api.get('/recipe/totp/device/list?userId=user-id')).json).toEqual({
      status: 'OK',
      devices: [{ name: 'device-name', period: 30, skew: 0, verified: false }],
    });
    expect((await api.get('/recipe/totp/device/list?userId=non-existent-user-id')).json).toEqual({ status: 'OK', devices: [] });
  });
});

describe('TotpUserIdMappingTest', () => {
  it('devices under an external id: verify one, an unverified device cannot sign in, the verified one can; remove it', async () => {
    const st = (await api.post('/recipe/signup', { email: 'totp-map@example.com', password: 'testPass123' })).json.user.id;
    expect((await api.post('/recipe/userid/map', { superTokensUserId: st, externalUserId: 'external-user-id' })).json.status).toBe('OK');
    const body = { userId: 'external-user-id', skew: 1, period: 30 };
    const d1 = (await api.post('/recipe/totp/device', { ...body, deviceName: 'd1' })).json;
    const d2 = (await api.post('/recipe/totp/device', { ...body, deviceName: 'd2' })).json;
    expect([d1.status, d2.status]).toEqual(['OK', 'OK']);
    const verified = await api.post('/recipe/totp/device/verify', {
      userId: 'external-user-id',
      deviceName: 'd1',
      totp: totpAt(d1.secret, step()),
    });
    expect(verified.json).toEqual({ status: 'OK', wasAlreadyVerified: false });
    const withD2 = await api.post('/recipe/totp/verify', { userId: 'external-user-id', totp: totpAt(d2.secret, step(1)) });
    expect(withD2.json.status).toBe('INVALID_TOTP_ERROR');
    const withD1 = await api.post('/recipe/totp/verify', { userId: 'external-user-id', totp: totpAt(d1.secret, step(1)) });
    expect(withD1.json).toEqual({ status: 'OK' });
    // Devices are held under the id given (Totp.removeDevice, Totp.java:485-517: no id translation); by the
    // supertokens id nothing is found, as a running reference core 11.4.4 answers too.
    expect((await api.post('/recipe/totp/device/remove', { userId: st, deviceName: 'd1' })).json).toEqual({
      status: 'OK',
      didDeviceExist: false,
    });
    expect((await api.post('/recipe/totp/device/remove', { userId: 'external-user-id', deviceName: 'd1' })).json).toEqual({
      status: 'OK',
      didDeviceExist: true,
    });
    expect((await api.get('/recipe/totp/device/list?userId=external-user-id')).json.devices.map((d: { name: string }) => d.name)).toEqual([
      'd2',
    ]);
  });
});
