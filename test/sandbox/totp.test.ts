// TOTP against a real sandbox, with codes computed independently by otplib 13 (and RFC 6238 vectors):
// import rules, verify, replay refusal, attempt limit and cooldown, device verify/list/remove.
import { createGuardrails, generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { totpMatches } from '../../src/sandbox/totp-codes.js';
import { LICENSE, advanceClock, client, errorText, startTestSandbox } from '../support/sandbox.js';

// 80-bit secrets are common in real exports; otplib refuses them unless its guardrails are relaxed.
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const SHORT_SECRET = 'GEZDGNBVGY3TQOJQ'; // 10 bytes

let sb: RunningSandbox;
let api: ReturnType<typeof client>;
let clockOffset = 0;

async function code(secret: string, at = Date.now() + clockOffset, period = 30): Promise<string> {
  return generate({ secret, epoch: Math.floor(at / 1000), period, digits: 6, guardrails });
}

async function advance(ms: number): Promise<void> {
  await advanceClock(sb, ms);
  clockOffset += ms;
}

/** Move both clocks 5 s into a fresh 30 s period, so a skew-0 code cannot cross a boundary mid-test. */
async function align(): Promise<void> {
  const t = Date.now() + clockOffset;
  await advance(Math.floor(t / 30_000) * 30_000 + 35_000 - t);
}

beforeAll(async () => {
  sb = await startTestSandbox({ licenseKey: LICENSE, env: { AUTH_MIGRATE_SANDBOX_TOTP_COOLDOWN_SEC: '900' } });
  api = client(sb);
});
afterAll(async () => {
  await sb?.stop();
});

describe('the code function', () => {
  it('matches RFC 6238 appendix B (SHA1) truncated to 6 digits', () => {
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(totpMatches(secret, 30, 0, '287082', 59_000)).toBe(true);
    expect(totpMatches(secret, 30, 0, '081804', 1111111109_000)).toBe(true);
    expect(totpMatches(secret, 30, 0, '279037', 2000000000_000)).toBe(true);
    expect(totpMatches(secret, 30, 0, '279038', 2000000000_000)).toBe(false);
    // Lenient as commons-codec: lower case and characters outside the alphabet do not change the key.
    expect(totpMatches(secret.toLowerCase().replace(/(.{4})/g, '$1 '), 30, 0, '287082', 59_000)).toBe(true);
  });
});

describe('POST /recipe/totp/device/import', () => {
  it('validation texts in the reference order', async () => {
    const imp = (body: Record<string, unknown>) => api.post('/recipe/totp/device/import', body);
    expect((await imp({ skew: 1, period: 30, secretKey: 'A' })).text).toBe(errorText("Field name 'userId' is invalid in JSON input"));
    expect((await imp({ userId: 'u', deviceName: null, skew: 1, period: 30, secretKey: 'A' })).text).toBe(
      errorText("Field name 'deviceName' is invalid in JSON input"),
    );
    expect((await imp({ userId: 'u', period: 30, secretKey: 'A' })).text).toBe(errorText("Field name 'skew' is invalid in JSON input"));
    expect((await imp({ userId: 'u', skew: 1, period: 30 })).text).toBe(errorText("Field name 'secretKey' is invalid in JSON input"));
    expect((await imp({ userId: '', skew: 1, period: 30, secretKey: 'A' })).text).toBe(errorText('userId cannot be empty'));
    expect((await imp({ userId: 'u', deviceName: '', skew: 1, period: 30, secretKey: 'A' })).text).toBe(
      errorText('deviceName cannot be empty'),
    );
    expect((await imp({ userId: 'u', skew: 1, period: 30, secretKey: '' })).text).toBe(errorText('secretKey cannot be empty'));
    expect((await imp({ userId: 'u', skew: -1, period: 30, secretKey: 'A' })).text).toBe(errorText('skew must be >= 0'));
    expect((await imp({ userId: 'u', skew: 1, period: 0, secretKey: 'A' })).text).toBe(errorText('period must be > 0'));
  });

  it('names devices TOTP Device <n>, refuses a verified duplicate, accepts numeric strings (Gson)', async () => {
    const imp = (body: Record<string, unknown>) => api.post('/recipe/totp/device/import', body);
    expect((await imp({ userId: 'names', skew: '1', period: '30', secretKey: SECRET })).json).toEqual({
      status: 'OK',
      deviceName: 'TOTP Device 0',
    });
    expect((await imp({ userId: 'names', skew: 1, period: 30, secretKey: SECRET })).json).toEqual({
      status: 'OK',
      deviceName: 'TOTP Device 1',
    });
    expect((await imp({ userId: 'names', deviceName: 'TOTP Device 1', skew: 1, period: 30, secretKey: SECRET })).json).toEqual({
      status: 'DEVICE_ALREADY_EXISTS_ERROR',
    });
    const list = await api.get('/recipe/totp/device/list?userId=names');
    expect(list.json).toEqual({
      status: 'OK',
      devices: [
        { name: 'TOTP Device 0', period: 30, skew: 1, verified: true },
        { name: 'TOTP Device 1', period: 30, skew: 1, verified: true },
      ],
    });
  });
});

describe('POST /recipe/totp/verify', () => {
  it('accepts the current code (80-bit secret), refuses its replay and a wrong code', async () => {
    await align();
    await api.post('/recipe/totp/device/import', { userId: 'alice', deviceName: 'phone', skew: 0, period: 30, secretKey: SHORT_SECRET });
    expect((await api.post('/recipe/totp/verify', { userId: 'nobody', totp: '123456' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await api.post('/recipe/totp/verify', { userId: '', totp: '1' })).text).toBe(errorText('userId cannot be empty'));
    const now = await code(SHORT_SECRET);
    expect((await api.post('/recipe/totp/verify', { userId: 'alice', totp: now })).json).toEqual({ status: 'OK' });
    expect((await api.post('/recipe/totp/verify', { userId: 'alice', totp: now })).json).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });
    const wrong = String((Number(now) + 1) % 1_000_000).padStart(6, '0');
    expect((await api.post('/recipe/totp/verify', { userId: 'alice', totp: wrong })).json.currentNumberOfFailedAttempts).toBe(2);
    // A valid code resets the streak.
    await advance(30_000);
    expect((await api.post('/recipe/totp/verify', { userId: 'alice', totp: await code(SHORT_SECRET) })).json).toEqual({ status: 'OK' });
  });

  it('honours the device skew and period', async () => {
    await api.post('/recipe/totp/device/import', { userId: 'skewy', skew: 2, period: 60, secretKey: SECRET });
    const t = Date.now() + clockOffset;
    expect((await api.post('/recipe/totp/verify', { userId: 'skewy', totp: await code(SECRET, t - 120_000, 60) })).json.status).toBe('OK');
    expect((await api.post('/recipe/totp/verify', { userId: 'skewy', totp: await code(SECRET, t + 120_000, 60) })).json.status).toBe('OK');
    expect((await api.post('/recipe/totp/verify', { userId: 'skewy', totp: await code(SECRET, t - 240_000, 60) })).json.status).toBe(
      'INVALID_TOTP_ERROR',
    );
    // Codes of a 30 s period are not codes of this 60 s device (unless they happen to collide).
    const other = await code(SECRET, t, 30);
    const sixty = await Promise.all([-2, -1, 0, 1, 2].map((i) => code(SECRET, t + i * 60_000, 60)));
    if (!sixty.includes(other))
      expect((await api.post('/recipe/totp/verify', { userId: 'skewy', totp: other })).json.status).toBe('INVALID_TOTP_ERROR');
  });

  it('5 wrong codes count up to 5/5, then LIMIT_REACHED_ERROR with retryAfterMs; after the cooldown the count restarts', async () => {
    await align();
    await api.post('/recipe/totp/device/import', { userId: 'mallory', skew: 0, period: 30, secretKey: SECRET });
    const right = await code(SECRET);
    const wrong = String((Number(right) + 500_000) % 1_000_000).padStart(6, '0');
    // A code longer than 8 characters is invalid at once (and not recorded).
    expect((await api.post('/recipe/totp/verify', { userId: 'mallory', totp: '123456789' })).json.currentNumberOfFailedAttempts).toBe(1);
    for (let n = 1; n <= 5; n++) {
      expect((await api.post('/recipe/totp/verify', { userId: 'mallory', totp: wrong })).json).toEqual({
        status: 'INVALID_TOTP_ERROR',
        currentNumberOfFailedAttempts: n,
        maxNumberOfFailedAttempts: 5,
      });
    }
    // Even the right code is refused during the cooldown.
    await advance(1_000);
    const blocked = await api.post('/recipe/totp/verify', { userId: 'mallory', totp: await code(SECRET) });
    expect(blocked.json).toMatchObject({ status: 'LIMIT_REACHED_ERROR', currentNumberOfFailedAttempts: 5, maxNumberOfFailedAttempts: 5 });
    // 900 s after the last failure, less the second moved above and the real milliseconds since.
    expect(blocked.json.retryAfterMs).toBeLessThanOrEqual(899_000);
    expect(blocked.json.retryAfterMs).toBeGreaterThan(889_000);
    await advance(899_000);
    await align();
    expect((await api.post('/recipe/totp/verify', { userId: 'mallory', totp: wrong })).json.currentNumberOfFailedAttempts).toBe(1);
    expect((await api.post('/recipe/totp/verify', { userId: 'mallory', totp: await code(SECRET) })).json).toEqual({ status: 'OK' });
  });

  it('older CDI answers carry no counters', async () => {
    await align();
    await api.post('/recipe/totp/device/import', { userId: 'old', skew: 0, period: 30, secretKey: SECRET });
    const right = await code(SECRET);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    expect((await api.post('/recipe/totp/verify', { userId: 'old', totp: wrong }, { 'cdi-version': '4.0' })).json).toEqual({
      status: 'INVALID_TOTP_ERROR',
    });
  });
});

describe('device verify, list, remove', () => {
  it('an imported device is already verified; a created one is verified by a real code', async () => {
    await api.post('/recipe/totp/device/import', { userId: 'bob', deviceName: 'imported', skew: 1, period: 30, secretKey: SECRET });
    expect((await api.post('/recipe/totp/device/verify', { userId: 'bob', deviceName: 'imported', totp: 'whatever' })).json).toEqual({
      status: 'OK',
      wasAlreadyVerified: true,
    });
    expect((await api.post('/recipe/totp/device/verify', { userId: 'bob', deviceName: 'nope', totp: '1' })).json).toEqual({
      status: 'UNKNOWN_DEVICE_ERROR',
    });
    expect((await api.post('/recipe/totp/device/verify', { userId: 'bob', deviceName: '', totp: '1' })).text).toBe(
      errorText('deviceName cannot be empty'),
    );
    const created = await api.post('/recipe/totp/device', { userId: 'bob', deviceName: 'new', skew: 1, period: 30 });
    expect(created.json).toMatchObject({ status: 'OK', deviceName: 'new' });
    const secret = created.json.secret as string;
    // Unverified devices do not count for /recipe/totp/verify.
    expect((await api.post('/recipe/totp/device/verify', { userId: 'bob', deviceName: 'new', totp: await code(secret) })).json).toEqual({
      status: 'OK',
      wasAlreadyVerified: false,
    });
    const list = (await api.get('/recipe/totp/device/list?userId=bob')).json.devices;
    expect(list.map((d: { name: string; verified: boolean }) => [d.name, d.verified])).toEqual([
      ['imported', true],
      ['new', true],
    ]);
    expect((await api.post('/recipe/totp/device/remove', { userId: 'bob', deviceName: 'new' })).json).toEqual({
      status: 'OK',
      didDeviceExist: true,
    });
    expect((await api.post('/recipe/totp/device/remove', { userId: 'bob', deviceName: 'new' })).json).toEqual({
      status: 'OK',
      didDeviceExist: false,
    });
    expect((await api.get('/recipe/totp/device/list?userId=ghost')).json).toEqual({ status: 'OK', devices: [] });
    expect((await api.get('/recipe/totp/device/list?userId=')).text).toBe(errorText('userId cannot be empty'));
  });
});
