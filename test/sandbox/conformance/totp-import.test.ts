// Conformance: POST /recipe/totp/device/import, ported from supertokens-core
// src/test/java/io/supertokens/test/totp/api/ImportTotpDeviceAPITest.java (testApi, testApiWithoutDeviceName).
import { describe, expect, it } from 'vitest';
import { totpAt } from '../../../src/shared/totp-code.js';
import { LICENSE, errorText, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE });

const SECRET = 'ZNPARPDTO6BFVSOFM3BPJGORPYTNTDSF';
const imp = (body: Record<string, unknown>) => api.post('/recipe/totp/device/import', body);

describe('ImportTotpDeviceAPITest', () => {
  it('testApi: fields parsed in order, then the value checks in order; imported, a repeat is DEVICE_ALREADY_EXISTS_ERROR; a code verifies', async () => {
    const body: Record<string, unknown> = {};
    const invalid = (f: string) => errorText(`Field name '${f}' is invalid in JSON input`);
    expect((await imp(body)).text).toBe(invalid('userId'));
    body.deviceName = '';
    body.userId = '';
    expect((await imp(body)).text).toBe(invalid('skew'));
    body.skew = -1;
    expect((await imp(body)).text).toBe(invalid('period'));
    body.period = 0;
    expect((await imp(body)).text).toBe(invalid('secretKey'));
    body.secretKey = '';
    expect((await imp(body)).text).toBe(errorText('userId cannot be empty'));
    body.userId = 'user-id';
    expect((await imp(body)).text).toBe(errorText('deviceName cannot be empty'));
    body.deviceName = 'd1';
    expect((await imp(body)).text).toBe(errorText('secretKey cannot be empty'));
    body.secretKey = SECRET;
    expect((await imp(body)).text).toBe(errorText('skew must be >= 0'));
    body.skew = 0;
    expect((await imp(body)).text).toBe(errorText('period must be > 0'));
    body.period = 30;
    expect((await imp(body)).json).toEqual({ status: 'OK', deviceName: 'd1' });
    expect((await imp(body)).json).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    const code = totpAt(SECRET, Math.floor(Date.now() / 30_000));
    expect((await api.post('/recipe/totp/device/verify', { userId: 'user-id', deviceName: 'd1', totp: code })).json.status).toBe('OK');
  });

  it('testApiWithoutDeviceName: the first device is "TOTP Device 0"; that name again is DEVICE_ALREADY_EXISTS_ERROR', async () => {
    const body = { userId: 'user-id-2', secretKey: SECRET, skew: 0, period: 30 };
    expect((await imp(body)).json).toEqual({ status: 'OK', deviceName: 'TOTP Device 0' });
    expect((await imp({ ...body, deviceName: 'TOTP Device 0' })).json).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
  });
});
