// Passwordless: create a code (6-digit input code + link code on a device), consume it with its attempt
// limit and lifetime, and PUT /recipe/user with rid passwordless (core-api.md §3.2-§3.4, §7).
import { createHash, createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { atLeast, commitThen, type Ctx, type Route } from '../context.js';
import { HttpError, badRequest, ok, status, str, strOrNull } from '../http.js';
import { FAULT_BODY } from '../faults.js';
import { findConflict } from '../linking.js';
import { key, type Change, type LoginMethod, type PasswordlessDevice } from '../store/index.js';
import { requireLoginMethod } from '../tenants.js';
import {
  externalId,
  findLoginMethod,
  markVerified,
  newUserId,
  normaliseEmail,
  normalisePhone,
  primaryOf,
  putUser,
  userJson,
} from '../users.js';

const STD_B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_B64 = /^[A-Za-z0-9_-]*={0,2}$/;

function decodeDeviceId(deviceId: string): Buffer {
  if (deviceId === '' || !STD_B64.test(deviceId)) throw badRequest('Input encoding error in deviceId');
  return Buffer.from(deviceId, 'base64');
}

const preAuthSessionIdOf = (deviceBytes: Buffer): string => createHash('sha256').update(deviceBytes).digest('base64url');

function linkCodeOf(deviceBytes: Buffer, salt: string, userInputCode: string): Buffer {
  return createHmac('sha256', Buffer.concat([deviceBytes, Buffer.from(salt, 'base64')]))
    .update(userInputCode, 'utf8')
    .digest();
}

const hashLinkCode = (linkCode: Buffer): string => createHash('sha256').update(linkCode).digest('base64url');

const deviceKey = (ctx: Ctx, preAuthSessionId: string): string => key(ctx.app, ctx.tenant, preAuthSessionId);

const sixDigits = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

async function createCode(ctx: Ctx) {
  const body = ctx.body();
  const email = str(body, 'email', true);
  const phone = str(body, 'phoneNumber', true);
  const deviceId = str(body, 'deviceId', true);
  const given = str(body, 'userInputCode', true);
  if ([email, phone, deviceId].filter((v) => v !== undefined).length !== 1) {
    throw badRequest('Please provide exactly one of email, phoneNumber or deviceId');
  }
  if (given === '') throw badRequest('userInputCode cannot be an empty string.');
  requireLoginMethod(ctx, 'passwordless');
  const userInputCode = given ?? sixDigits();
  let device: PasswordlessDevice;
  let deviceBytes: Buffer;
  if (deviceId !== undefined) {
    deviceBytes = decodeDeviceId(deviceId);
    const existing = ctx.state.maps.pless.get(deviceKey(ctx, preAuthSessionIdOf(deviceBytes)));
    if (!existing) return status('RESTART_FLOW_ERROR');
    device = existing;
  } else {
    deviceBytes = randomBytes(32);
    device = {
      app: ctx.app,
      tenant: ctx.tenant,
      preAuthSessionId: preAuthSessionIdOf(deviceBytes),
      deviceId: deviceBytes.toString('base64'),
      linkCodeSalt: randomBytes(32).toString('base64'),
      failedAttempts: 0,
      codes: [],
    };
    if (email !== undefined) device.email = normaliseEmail(email);
    else device.phoneNumber = normalisePhone(phone!);
  }
  const linkCode = linkCodeOf(deviceBytes, device.linkCodeSalt, userInputCode);
  const linkCodeHash = hashLinkCode(linkCode);
  if (device.codes.some((c) => c.linkCodeHash === linkCodeHash)) return status('USER_INPUT_CODE_ALREADY_USED_ERROR');
  const codeId = randomUUID();
  const next: PasswordlessDevice = { ...device, codes: [...device.codes, { codeId, linkCodeHash, createdAt: ctx.now }] };
  return commitThen(ctx, [{ c: 'pless', k: deviceKey(ctx, device.preAuthSessionId), v: next }], () =>
    ok({
      preAuthSessionId: device.preAuthSessionId,
      codeId,
      deviceId: device.deviceId,
      userInputCode,
      linkCode: linkCode.toString('base64url'),
      timeCreated: ctx.now,
      codeLifetime: ctx.config.passwordlessCodeLifetimeMs,
    }),
  );
}

/** Delete every pending device of that email/phone in the tenant. */
function deleteDevicesOf(ctx: Ctx, contact: { email?: string; phoneNumber?: string }): Change[] {
  const out: Change[] = [];
  const keys = new Set<string>();
  if (contact.email) for (const k of ctx.state.plessByContact.get(key(ctx.app, ctx.tenant, 'e', contact.email))) keys.add(k);
  if (contact.phoneNumber) for (const k of ctx.state.plessByContact.get(key(ctx.app, ctx.tenant, 'p', contact.phoneNumber))) keys.add(k);
  for (const k of keys) out.push({ c: 'pless', k });
  return out;
}

async function consumeCode(ctx: Ctx) {
  const body = ctx.body();
  const preAuthSessionId = str(body, 'preAuthSessionId');
  const linkCode = str(body, 'linkCode', true);
  const deviceId = str(body, 'deviceId', true);
  const userInputCode = str(body, 'userInputCode', true);
  const exactlyOne = 'Please provide exactly one of linkCode or deviceId+userInputCode';
  if (linkCode !== undefined && (deviceId !== undefined || userInputCode !== undefined)) throw badRequest(exactlyOne);
  if (linkCode === undefined && (deviceId === undefined || userInputCode === undefined)) throw badRequest(exactlyOne);
  let deviceBytes: Buffer | undefined;
  if (deviceId !== undefined) {
    deviceBytes = decodeDeviceId(deviceId);
    if (preAuthSessionIdOf(deviceBytes) !== preAuthSessionId.replace(/=/g, ''))
      throw badRequest("preAuthSessionId and deviceId doesn't match");
  } else if (!URL_B64.test(linkCode!)) throw badRequest('Input encoding error in linkCode');
  requireLoginMethod(ctx, 'passwordless');
  const max = ctx.config.passwordlessMaxCodeInputAttempts;
  const lifetime = ctx.config.passwordlessCodeLifetimeMs;
  let device: PasswordlessDevice | undefined;
  if (linkCode !== undefined) {
    const hash = hashLinkCode(Buffer.from(linkCode, 'base64url'));
    const dk = ctx.state.plessByLinkCode.get(key(ctx.app, ctx.tenant, hash));
    device = dk ? ctx.state.maps.pless.get(dk) : undefined;
    const code = device?.codes.find((c) => c.linkCodeHash === hash);
    if (!device || !code || code.createdAt + lifetime <= ctx.now) return status('RESTART_FLOW_ERROR');
    // Passwordless.checkCodeAndReturnDevice: the link code's device must be the one the session names.
    if (device.preAuthSessionId !== preAuthSessionId.replace(/=/g, '')) throw badRequest("preAuthSessionId and deviceId doesn't match");
  } else {
    const dk = deviceKey(ctx, preAuthSessionIdOf(deviceBytes!));
    device = ctx.state.maps.pless.get(dk);
    if (!device) return status('RESTART_FLOW_ERROR');
    if (device.failedAttempts >= max) return commitThen(ctx, [{ c: 'pless', k: dk }], () => status('RESTART_FLOW_ERROR'));
    const hash = hashLinkCode(linkCodeOf(deviceBytes!, device.linkCodeSalt, userInputCode!));
    const code = device.codes.find((c) => c.linkCodeHash === hash);
    if (!code || code.createdAt + lifetime <= ctx.now) {
      if (device.failedAttempts + 1 >= max) return commitThen(ctx, [{ c: 'pless', k: dk }], () => status('RESTART_FLOW_ERROR'));
      const failed = device.failedAttempts + 1;
      const reply = status(code ? 'EXPIRED_USER_INPUT_CODE_ERROR' : 'INCORRECT_USER_INPUT_CODE_ERROR', {
        failedCodeInputAttemptCount: failed,
        maximumCodeInputAttempts: max,
      });
      return commitThen(ctx, [{ c: 'pless', k: dk, v: { ...device, failedAttempts: failed } }], () => reply);
    }
  }
  const changes = deleteDevicesOf(ctx, device);
  if (ctx.fault === 'partial') {
    // Fault mode `partial`: Passwordless.checkCodeAndReturnDevice commits the devices' deletion on its own
    // (Passwordless.java:386-396); the user's look-up (:431) or creation (:462) then fails: code used, no user, 500.
    await ctx.store.commit(changes);
    throw new HttpError(500, FAULT_BODY);
  }
  const existingId = device.email
    ? ctx.state.plessByEmail.get(key(ctx.app, ctx.tenant, device.email))
    : ctx.state.plessByPhone.get(key(ctx.app, ctx.tenant, device.phoneNumber!));
  let user = existingId ? ctx.state.maps.users.get(existingId) : undefined;
  const createdNewUser = !user;
  if (!user) {
    user = { app: ctx.app, id: newUserId(), recipeId: 'passwordless', tenantIds: [ctx.tenant], timeJoined: ctx.now };
    if (device.email) user.email = device.email;
    if (device.phoneNumber) user.phoneNumber = device.phoneNumber;
    changes.push(putUser(user));
  }
  if (atLeast(ctx, '4.0') && user.email) {
    if (ctx.fault === 'unverified') {
      // Fault mode `unverified`: the user is created (Passwordless.java:462) or found, then the transaction that
      // marks its email verified (:471 for a new user, :498 for an existing one) fails: no verified flag, 500.
      await ctx.store.commit(changes);
      throw new HttpError(500, FAULT_BODY);
    }
    changes.push(...markVerified(ctx, user.id, user.email));
  }
  const consumedUser = user;
  const consumedDevice = device;
  return commitThen(ctx, changes, () => consumedReply(ctx, consumedUser, consumedDevice, createdNewUser));
}

/** The answer to a consumed code, as the request's cdi-version shapes it (recipeUserId from 4.0, consumedDevice from 5.0). */
function consumedReply(ctx: Ctx, user: LoginMethod, device: PasswordlessDevice, createdNewUser: boolean) {
  const reply: Record<string, unknown> = { createdNewUser, user: userJson(ctx, user) };
  if (atLeast(ctx, '4.0')) reply.recipeUserId = externalId(ctx, user.id);
  if (atLeast(ctx, '5.0')) {
    const consumed: Record<string, unknown> = {
      preAuthSessionId: device.preAuthSessionId,
      failedCodeInputAttemptCount: device.failedAttempts,
    };
    if (device.email) consumed.email = device.email;
    if (device.phoneNumber) consumed.phoneNumber = device.phoneNumber;
    reply.consumedDevice = consumed;
  }
  return ok(reply);
}

/** PUT /recipe/user with rid passwordless: absent key = unchanged, null = clear, string = new value. */
export async function updatePasswordlessUser(ctx: Ctx) {
  const body = ctx.body();
  const id = str(body, atLeast(ctx, '4.0') ? 'recipeUserId' : 'userId');
  const rawEmail = strOrNull(body, 'email');
  const rawPhone = strOrNull(body, 'phoneNumber');
  const u = findLoginMethod(ctx, id);
  if (!u || u.recipeId !== 'passwordless') return status('UNKNOWN_USER_ID_ERROR');
  const email = rawEmail === undefined ? u.email : rawEmail === null ? undefined : normaliseEmail(rawEmail);
  const phoneNumber = rawPhone === undefined ? u.phoneNumber : rawPhone === null ? undefined : normalisePhone(rawPhone);
  if (email === undefined && phoneNumber === undefined) throw badRequest('You cannot clear both email and phone number of a user');
  const exceptPrimary = u.primaryUserId ? primaryOf(ctx, u).id : undefined;
  if (email && email !== u.email) {
    if (u.tenantIds.some((t) => ctx.state.plessByEmail.has(key(ctx.app, t, email)))) return status('EMAIL_ALREADY_EXISTS_ERROR');
    if (u.primaryUserId && findConflict(ctx, { email }, u.tenantIds, exceptPrimary)) {
      return status('EMAIL_CHANGE_NOT_ALLOWED_ERROR', { reason: 'New email is associated with another primary user ID' });
    }
  }
  if (phoneNumber && phoneNumber !== u.phoneNumber) {
    if (u.tenantIds.some((t) => ctx.state.plessByPhone.has(key(ctx.app, t, phoneNumber))))
      return status('PHONE_NUMBER_ALREADY_EXISTS_ERROR');
    if (u.primaryUserId && findConflict(ctx, { phoneNumber }, u.tenantIds, exceptPrimary)) {
      return status('PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR', { reason: 'New phone number is associated with another primary user ID' });
    }
  }
  const next: LoginMethod = { ...u };
  delete next.email;
  delete next.phoneNumber;
  if (email) next.email = email;
  if (phoneNumber) next.phoneNumber = phoneNumber;
  const changes: Change[] = [putUser(next)];
  for (const t of u.tenantIds) {
    const scoped = { ...ctx, tenant: t };
    changes.push(
      ...deleteDevicesOf(scoped, { email: u.email, phoneNumber: u.phoneNumber }),
      ...deleteDevicesOf(scoped, { email, phoneNumber }),
    );
  }
  await ctx.store.commit(dedupe(changes));
  return ok();
}

function dedupe(changes: Change[]): Change[] {
  const seen = new Set<string>();
  return changes.filter((c) => {
    const k = `${c.c}\u0000${c.k}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export const passwordlessRoutes: Route[] = [
  { path: '/recipe/signinup/code', scope: 'tenant', methods: { POST: createCode } },
  { path: '/recipe/signinup/code/consume', scope: 'tenant', methods: { POST: consumeCode } },
];
