// TOTP: import and create devices, verify codes for real (attempt limit, cooldown, replay), verify a
// device, list and remove devices (core-api.md §3.1, §4.2-§4.4, §8).
import { randomBytes } from 'node:crypto';
import base32 from 'hi-base32';
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
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

/** The reference's default device name: `TOTP Device <n>`, n from the number of verified devices. */
export function defaultName(devices: TotpDevice[]): string {
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
  const reply = verified ? ok({ deviceName: name }) : ok({ deviceName: name, secret: secretKey });
  return commitThen(ctx, [putDevices(ctx, input.userId, [...devices.filter((d) => d.name !== name), device])], () => reply);
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

/**
 * Check a code against `devices` as Totp.checkAndStoreCode does: N contiguous invalid attempts within the
 * cooldown -> LIMIT_REACHED (nothing stored); codes over 8 chars invalid (not stored); a valid code already
 * used and unexpired is a replay; every other attempt is recorded. After a cooldown the count restarts.
 */
async function checkCode(ctx: Ctx, userId: string, devices: TotpDevice[], code: string): Promise<Reply | TotpDevice> {
  const max = ctx.config.totpMaxAttempts;
  const cooldownMs = ctx.config.totpCooldownSec * 1000;
  const usedKey = key(ctx.app, ctx.tenant, userId);
  let used = ctx.state.maps.totpUsed.get(usedKey)?.codes ?? [];
  const counters = (n: number) => (atLeast(ctx, '5.0') ? { currentNumberOfFailedAttempts: n, maxNumberOfFailedAttempts: max } : {});
  // Newest first: contiguous invalid attempts among the latest N (expired ones count too, as in the core).
  let invalid = 0;
  for (let i = used.length - 1; i >= 0 && invalid < max; i--) {
    if (used[i]!.valid) break;
    invalid++;
  }
  if (invalid >= max && max > 0) {
    const elapsed = ctx.now - used[used.length - 1]!.createdAt;
    if (elapsed < cooldownMs) return status('LIMIT_REACHED_ERROR', { retryAfterMs: cooldownMs - elapsed, ...counters(invalid) });
    invalid = 0;
    used = used.filter((c) => c.valid);
  }
  if (code.length > 8) return status('INVALID_TOTP_ERROR', counters(invalid + 1));
  const match = devices.find((d) => totpMatches(d.secretKey, d.period, d.skew, code, ctx.now));
  const replay = used.some((c) => c.valid && c.code === code && c.expiresAt > ctx.now);
  const valid = !!match && !replay;
  const expiresInSec = match ? match.period * (2 * match.skew + 1) : Math.max(0, ...devices.map((d) => d.period * (2 * d.skew + 1)));
  const attempt: TotpUsedCode = { code, valid, expiresAt: ctx.now + expiresInSec * 1000, createdAt: ctx.now };
  // Keep what the rules read: the latest N attempts, and valid codes until they expire (replays).
  const all = [...used, attempt];
  const kept = all.filter((c, i) => i >= all.length - max || (c.valid && c.expiresAt > ctx.now));
  await ctx.store.commit([{ c: 'totpUsed', k: usedKey, v: { app: ctx.app, tenant: ctx.tenant, userId, codes: kept } }]);
  if (valid) return match;
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
  const result = await checkCode(
    ctx,
    userId,
    all.filter((d) => d.verified),
    totp,
  );
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
  await ctx.store.commit([
    putDevices(
      ctx,
      userId,
      now.map((d) => (d.name === deviceName ? { ...d, verified: true } : d)),
    ),
  ]);
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
  await ctx.store.commit([
    putDevices(
      ctx,
      userId,
      devices.filter((d) => d.name !== deviceName),
    ),
  ]);
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
