// TOTP device rules: the secret decodes in its stated encoding and is long enough, period and skew are
// usable, the factor is one the core can verify (HMAC-SHA1, 6 digits), device names are unique per user.
import { decodeSecret } from './secrets.js';
import { flag, type RuleContext } from './rule-context.js';
import type { CanonicalTotp, SecretEncoding } from './types.js';

const ENCODINGS = new Set(['base32', 'base64', 'hex']);

/** The devices that can be migrated, with defaults filled (base32, period 30, skew 1). */
export function checkTotpDevices(ctx: RuleContext, devices: unknown): CanonicalTotp[] {
  if (!Array.isArray(devices)) {
    flag(ctx, 'error', 'totp.type', 'totp', '`totp` must be a list of devices `[{ "secret": "..." }]`; fix the record');
    return [];
  }
  const out: CanonicalTotp[] = [];
  let names: Set<string> | undefined;
  for (let i = 0; i < devices.length; i++) {
    const field = `totp[${i}]`;
    const device = devices[i] as Record<string, unknown> | null;
    if (typeof device !== 'object' || device === null) {
      flag(ctx, 'error', 'totp.type', field, 'a TOTP device must be an object `{ "secret": "..." }`; fix the record');
      continue;
    }
    const checked = checkDevice(ctx, device, field);
    if (!checked) continue;
    if (checked.deviceName !== undefined) {
      names ??= new Set();
      if (names.has(checked.deviceName)) {
        flag(
          ctx,
          'error',
          'totp.device-name.duplicate',
          `${field}.deviceName`,
          'another TOTP device of this user has the same name, and the core keeps names unique per user; rename one',
        );
        continue;
      }
      names.add(checked.deviceName);
    }
    out.push(checked);
  }
  return out;
}

function checkDevice(ctx: RuleContext, device: Record<string, unknown>, field: string): CanonicalTotp | undefined {
  const secret = device.secret;
  if (secret === undefined || secret === null || secret === '') {
    flag(
      ctx,
      'warning',
      'totp.secret.absent',
      `${field}.secret`,
      'the export has no secret for this TOTP device, so it cannot be migrated; the user must set up TOTP again after the migration',
    );
    return undefined;
  }
  if (typeof secret !== 'string') {
    flag(ctx, 'error', 'totp.type', `${field}.secret`, 'the secret must be a string; fix the record');
    return undefined;
  }
  const encoding = device.encoding ?? 'base32';
  let ok = secretDecodes(ctx, secret, encoding, field);
  const period = device.period ?? 30;
  if (typeof period !== 'number' || !Number.isInteger(period) || period <= 0) {
    flag(ctx, 'error', 'totp.period', `${field}.period`, 'the period must be a whole number of seconds above 0 (usually 30); correct it');
    ok = false;
  }
  const skew = device.skew ?? 1;
  if (typeof skew !== 'number' || !Number.isInteger(skew) || skew < 0) {
    flag(ctx, 'error', 'totp.skew', `${field}.skew`, 'the skew must be a whole number of periods, 0 or more (usually 1); correct it');
    ok = false;
  }
  if (!factorSupported(ctx, device, field)) ok = false;
  const deviceName = device.deviceName;
  if (deviceName !== undefined && deviceName !== null && typeof deviceName !== 'string') {
    flag(ctx, 'error', 'totp.type', `${field}.deviceName`, 'the device name must be a string; fix the record');
    ok = false;
  }
  if (!ok) return undefined;
  const out: CanonicalTotp = { secret, encoding: encoding as SecretEncoding, period: period as number, skew: skew as number };
  const name = typeof deviceName === 'string' ? deviceName.trim() : '';
  if (name !== '') out.deviceName = name;
  return out;
}

/** The secret decodes in its stated encoding and is long enough (a short one is an error, a weak one a warning). */
function secretDecodes(ctx: RuleContext, secret: string, encoding: unknown, field: string): boolean {
  let ok = true;
  if (typeof encoding !== 'string' || !ENCODINGS.has(encoding)) {
    flag(ctx, 'error', 'totp.encoding', `${field}.encoding`, 'the encoding must be base32, base64 or hex; correct it');
    ok = false;
  } else {
    const decoded = decodeSecret(secret, encoding as SecretEncoding);
    if (!decoded.ok) {
      flag(
        ctx,
        'error',
        'totp.secret.encoding',
        `${field}.secret`,
        `${decoded.reason} (stated encoding ${encoding}); correct the secret or its encoding`,
      );
      ok = false;
    } else if (decoded.bytes.length < 10) {
      flag(
        ctx,
        'error',
        'totp.secret.short',
        `${field}.secret`,
        `the secret is ${decoded.bytes.length} bytes; at least 10 are needed: check that the encoding is right, or the user must set up TOTP again`,
      );
      ok = false;
    } else if (decoded.bytes.length < 16) {
      flag(
        ctx,
        'warning',
        'totp.secret.weak',
        `${field}.secret`,
        `the secret is ${decoded.bytes.length} bytes (under the recommended 16); it will work, nothing to do`,
      );
    }
  }
  return ok;
}

/** The device is one the core can verify: HMAC-SHA1 and 6 digits (each mismatch flagged). */
function factorSupported(ctx: RuleContext, device: Record<string, unknown>, field: string): boolean {
  let ok = true;
  const algorithm = device.algorithm;
  if (algorithm !== undefined && algorithm !== null && String(algorithm).toUpperCase().replace(/[-_]/g, '') !== 'SHA1') {
    flag(
      ctx,
      'error',
      'totp.algorithm.unsupported',
      `${field}.algorithm`,
      'the core verifies TOTP with HMAC-SHA1 only, so this device cannot be migrated; the user must set up TOTP again',
    );
    ok = false;
  }
  const digits = device.digits;
  if (digits !== undefined && digits !== null && Number(digits) !== 6) {
    flag(
      ctx,
      'error',
      'totp.digits.unsupported',
      `${field}.digits`,
      'the core verifies 6-digit TOTP codes only, so this device cannot be migrated; the user must set up TOTP again',
    );
    ok = false;
  }
  return ok;
}
