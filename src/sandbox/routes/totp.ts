// TOTP: import and create devices, verify codes for real (attempt limit, cooldown, replay), verify a
// device, list and remove devices (core-api.md §3.1, §4.2-§4.4, §8).
import { randomBytes } from 'node:crypto';
import base32 from 'hi-base32';
import { atLeast, type Ctx, type Route } from '../context.js';
import { badRequest, int, ok, query, status, str, type Reply } from '../http.js';
import { requireFeature } from '../license.js';
import { key, type TotpDevice, type TotpDevices, type TotpUsedCode } from '../store/index.js';
import { totpMatches } from '../totp-codes.js';

const devicesKey = (ctx: Ctx, userId: string): string => key(ctx.app, userId);
const devicesOf = (ctx: Ctx, userId: string): TotpDevice[] => ctx.state.maps.totp.get(devicesKey(ctx, userId))?.devices ?? [];
const putDevices = (ctx: Ctx, userId: string, devices: TotpDevice[]) =>
  devices.length > 0
    ? { c: 'totp' as const, k: devicesKey(ctx, userId), v: { app: ctx.app, userId, devices } satisfies TotpDevices }
    : { c: 'totp' as const, k: devicesKey(ctx, userId) };

function defaultName(devices: TotpDevice[]): string {
  let n = devices.filter((d) => d.verified).length;
  while (devices.some((d) => d.name === `TOTP Device ${n}`)) n++;
  return `TOTP Device ${n}`;
}

function parseDeviceInput(ctx: Ctx, requireSecret: boolean) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const deviceName = str(body, 'deviceName', true);
  const skew = int(body, 'skew');
  const period = int(body, 'period');
  const secretKey = requireSecret ? str(body, 'secretKey') : undefined;
  if (userId === '') throw badRequest('userId cannot be empty');
  if (deviceName === '') throw badRequest('deviceName cannot be empty');
  if (requireSecret && secretKey === '') throw badRequest('secretKey cannot be empty');
  if (skew < 0) throw badRequest('skew must be >= 0');
  if (period <= 0) throw badRequest('period must be > 0');
  return { userId, deviceName, skew, period, secretKey };
}

async function addDevice(ctx: Ctx, input: ReturnType<typeof parseDeviceInput>, secretKey: string, verified: boolean): Promise<Reply> {
  const devices = devicesOf(ctx, input.userId);
  const name = input.deviceName ?? defaultName(devices);
  const same = devices.find((d) => d.name === name);
  if (same?.verified) return status('DEVICE_ALREADY_EXISTS_ERROR');
  const device: TotpDevice = { name, secretKey, period: input.period, skew: input.skew, verified, createdAt: ctx.now };
  await ctx.store.commit([putDevices(ctx, input.userId, [...devices.filter((d) => d.name !== name), device])]);
  return verified ? ok({ deviceName: name }) : ok({ deviceName: name, secret: secretKey });
}

async function importDevice(ctx: Ctx) {
  const input = parseDeviceInput(ctx, true);
  requireFeature(ctx, 'mfa');
  return addDevice(ctx, input, input.secretKey!, true);
}

async function createDevice(ctx: Ctx) {
  const input = parseDeviceInput(ctx, false);
  requireFeature(ctx, 'mfa');
  return addDevice(ctx, input, base32.encode(randomBytes(20)).replace(/=+$/, ''), false);
}

/** Check a code against `devices` with the limit, cooldown and replay rules; records the attempt. */
async function checkCode(ctx: Ctx, userId: string, devices: TotpDevice[], code: string): Promise<Reply | TotpDevice> {
  const max = ctx.config.totpMaxAttempts;
  const cooldownMs = ctx.config.totpCooldownSec * 1000;
  const usedKey = key(ctx.app, ctx.tenant, userId);
  const used = (ctx.state.maps.totpUsed.get(usedKey)?.codes ?? []).filter((c) => c.valid ? c.expiresAt > ctx.now : true);
  // Newest first: consecutive invalid attempts since the last valid one (or since the last cooldown ended).
  let invalid = 0;
  for (let i = used.length - 1; i >= 0 && invalid < max; i--) {
    if (used[i]!.valid) break;
    invalid++;
  }
  const newest = used[used.length - 1];
  const counters = (n: number) => (atLeast(ctx, '5.0') ? { currentNumberOfFailedAttempts: n, maxNumberOfFailedAttempts: max } : {});
  if (invalid >= max && newest) {
    const blockedUntil = newest.createdAt + cooldownMs;
    if (ctx.now < blockedUntil) return status('LIMIT_REACHED_ERROR', { retryAfterMs: blockedUntil - ctx.now, ...counters(max) });
    invalid = 0;
  }
  const replay = used.some((c) => c.valid && c.code === code);
  const match = code.length <= 8 && !replay ? devices.find((d) => totpMatches(d.secretKey, d.period, d.skew, code, ctx.now)) : undefined;
  const expiresIn = Math.max(...devices.map((d) => d.period * (2 * d.skew + 1)), 1) * 1000;
  const attempt: TotpUsedCode = { code, valid: !!match, expiresAt: ctx.now + expiresIn, createdAt: ctx.now };
  // Keep valid codes until they expire, and only the invalid ones the limit needs.
  const kept = invalid === 0 && !match ? used.filter((c) => c.valid) : used;
  const trimmed = [...kept, attempt].filter((c, i, all) => c.valid || i >= all.length - max);
  await ctx.store.commit([{ c: 'totpUsed', k: usedKey, v: { app: ctx.app, tenant: ctx.tenant, userId, codes: trimmed } }]);
  if (match) return match;
  if (invalid + 1 >= max) return status('LIMIT_REACHED_ERROR', { retryAfterMs: cooldownMs, ...counters(max) });
  return status('INVALID_TOTP_ERROR', counters(invalid + 1));
}

async function verifyTotp(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const totp = str(body, 'totp');
  if (userId === '') throw badRequest('userId cannot be empty');
  requireFeature(ctx, 'mfa');
  const all = devicesOf(ctx, userId);
  if (all.length === 0) return status('UNKNOWN_USER_ID_ERROR');
  const result = await checkCode(ctx, userId, all.filter((d) => d.verified), totp);
  return 'kind' in result ? result : ok();
}

async function verifyDevice(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const deviceName = str(body, 'deviceName');
  const totp = str(body, 'totp');
  if (userId === '') throw badRequest('userId cannot be empty');
  if (deviceName === '') throw badRequest('deviceName cannot be empty');
  const devices = devicesOf(ctx, userId);
  const device = devices.find((d) => d.name === deviceName);
  if (!device) return status('UNKNOWN_DEVICE_ERROR');
  if (device.verified) return ok({ wasAlreadyVerified: true });
  const result = await checkCode(ctx, userId, [device], totp);
  if ('kind' in result) return result;
  const now = devicesOf(ctx, userId);
  await ctx.store.commit([putDevices(ctx, userId, now.map((d) => (d.name === deviceName ? { ...d, verified: true } : d)))]);
  return ok({ wasAlreadyVerified: false });
}

function listDevices(ctx: Ctx) {
  const userId = query(ctx.query, 'userId');
  if (userId === '') throw badRequest('userId cannot be empty');
  return ok({ devices: devicesOf(ctx, userId).map((d) => ({ name: d.name, period: d.period, skew: d.skew, verified: d.verified })) });
}

async function removeDevice(ctx: Ctx) {
  const body = ctx.body();
  const userId = str(body, 'userId');
  const deviceName = str(body, 'deviceName');
  if (userId === '') throw badRequest('userId cannot be empty');
  if (deviceName === '') throw badRequest('deviceName cannot be empty');
  const devices = devicesOf(ctx, userId);
  if (!devices.some((d) => d.name === deviceName)) return ok({ didDeviceExist: false });
  await ctx.store.commit([putDevices(ctx, userId, devices.filter((d) => d.name !== deviceName))]);
  return ok({ didDeviceExist: true });
}

export const totpRoutes: Route[] = [
  { path: '/recipe/totp/device/import', scope: 'app', methods: { POST: importDevice } },
  { path: '/recipe/totp/device', scope: 'app', methods: { POST: createDevice } },
  { path: '/recipe/totp/verify', scope: 'tenant', methods: { POST: verifyTotp } },
  { path: '/recipe/totp/device/verify', scope: 'tenant', methods: { POST: verifyDevice } },
  { path: '/recipe/totp/device/list', scope: 'app', methods: { GET: listDevices } },
  { path: '/recipe/totp/device/remove', scope: 'app', methods: { POST: removeDevice } },
];
