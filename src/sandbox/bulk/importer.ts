// Importing one validated bulk user into the store, in the steps and with the error texts of the reference core's
// BulkImport.processUsersImportSteps: login methods (with their own timeJoined) and their tenants, primary user and
// links, external id mapping, email verification, TOTP devices, metadata, roles. Every check runs on the state the
// changes are applied to (nothing awaits between them), and the whole user is one commit: imported entirely or not.
import bcrypt from 'bcryptjs';
import type { Ctx } from '../context.js';
import { enabledFeatures } from '../license.js';
import { findConflict } from '../linking.js';
import { key, type Change, type LoginMethod, type TotpDevice } from '../store/index.js';
import { markVerified, putUser } from '../users.js';
import { metadataUpdate } from '../routes/metadata-roles.js';
import { defaultName } from '../routes/totp.js';
import { primaryMethod, type BulkLoginMethod, type BulkUser } from './schema.js';

export type ImportCtx = Pick<Ctx, 'app' | 'state' | 'config' | 'now'>;

/**
 * Why a user was not imported. `perUser` errors are the reference's BulkImportBatchInsertException entries (the
 * import API lists their messages as they are); the others reach the API wrapped as a java.lang.Exception.
 */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly perUser: boolean,
  ) {
    super(message);
  }
}

const fail = (message: string, perUser = true): never => {
  throw new ImportError(message, perUser);
};

/** Hashes the plain-text passwords (the only slow step), before the synchronous checks. */
export async function hashPlainTextPasswords(ctx: ImportCtx, user: BulkUser): Promise<void> {
  for (const m of user.loginMethods) {
    if (m.recipeId === 'emailpassword' && m.passwordHash === undefined && m.plainTextPassword !== undefined) {
      m.passwordHash = await bcrypt.hash(m.plainTextPassword, ctx.config.bcryptRounds);
    }
  }
}

/** The recipe user a bulk login method holds in a tenant, if one exists already. */
function existingIn(ctx: ImportCtx, m: BulkLoginMethod, tenant: string): string | undefined {
  const s = ctx.state;
  if (m.recipeId === 'emailpassword') return s.epByEmail.get(key(ctx.app, tenant, m.email!));
  if (m.recipeId === 'thirdparty') return s.tpById.get(key(ctx.app, tenant, m.thirdPartyId!, m.thirdPartyUserId!));
  if (m.email !== undefined && s.plessByEmail.has(key(ctx.app, tenant, m.email))) return 'email';
  if (m.phoneNumber !== undefined && s.plessByPhone.has(key(ctx.app, tenant, m.phoneNumber))) return 'phone';
  return undefined;
}

/** Two methods of the same user holding the same recipe account in a tenant. */
function sameAccount(a: BulkLoginMethod, b: BulkLoginMethod): 'email' | 'phone' | true | false {
  if (a.recipeId !== b.recipeId) return false;
  if (a.recipeId === 'emailpassword') return a.email === b.email;
  if (a.recipeId === 'thirdparty') return a.thirdPartyId === b.thirdPartyId && a.thirdPartyUserId === b.thirdPartyUserId;
  if (a.email !== undefined && a.email === b.email) return 'email';
  if (a.phoneNumber !== undefined && a.phoneNumber === b.phoneNumber) return 'phone';
  return false;
}

function duplicateText(m: BulkLoginMethod, which: string | true, tenant: string, first: boolean): string {
  const id = m.externalUserId ?? m.superTokensUserId;
  const lead = `We tried to add the userId ${id} to the tenantId ${tenant} but another user with`;
  if (m.recipeId === 'emailpassword')
    return first
      ? `E003: A user with email ${m.email} already exists in emailpassword loginMethod.`
      : `E014: ${lead} email ${m.email} already exists.`;
  if (m.recipeId === 'thirdparty') {
    const tp = `thirdPartyId ${m.thirdPartyId} and thirdPartyUserId ${m.thirdPartyUserId}`;
    return first ? `E005: A user with ${tp} already exists in thirdparty loginMethod.` : `E016: ${lead} ${tp} already exists.`;
  }
  if (which === 'phone')
    return first
      ? `E007: A user with phoneNumber ${m.phoneNumber} already exists in passwordless loginMethod.`
      : `E015: ${lead} phoneNumber ${m.phoneNumber} already exists.`;
  return first
    ? `E006: A user with email ${m.email} already exists in passwordless loginMethod.`
    : `E014: ${lead} email ${m.email} already exists.`;
}

/** Login methods of the user, in the reference's recipe order (its batch inserts go recipe by recipe). */
function checkLoginMethods(ctx: ImportCtx, user: BulkUser): void {
  const order = ['emailpassword', 'thirdparty', 'passwordless'];
  const methods = [...user.loginMethods].sort((a, b) => order.indexOf(a.recipeId) - order.indexOf(b.recipeId));
  for (const [pass, first] of [[0, true] as const, [1, false] as const]) {
    for (const m of methods) {
      const tenants = pass === 0 ? m.tenantIds.slice(0, 1) : m.tenantIds.slice(1);
      for (const t of tenants) {
        const clash = existingIn(ctx, m, t);
        if (clash !== undefined) fail(duplicateText(m, clash === 'phone' ? 'phone' : true, t, first));
        for (const other of methods) {
          if (other === m || !other.tenantIds.includes(t) || methods.indexOf(other) > methods.indexOf(m)) continue;
          const same = sameAccount(m, other);
          if (same) fail(duplicateText(m, same, t, first));
        }
      }
    }
  }
}

function recipeUser(ctx: ImportCtx, m: BulkLoginMethod, primaryId: string | undefined): LoginMethod {
  const u: LoginMethod = {
    app: ctx.app,
    id: m.superTokensUserId,
    recipeId: m.recipeId as LoginMethod['recipeId'],
    tenantIds: [...m.tenantIds],
    timeJoined: m.timeJoinedInMSSinceEpoch,
  };
  if (m.email !== undefined) u.email = m.email;
  if (m.phoneNumber !== undefined) u.phoneNumber = m.phoneNumber;
  if (m.thirdPartyId !== undefined) u.thirdParty = { id: m.thirdPartyId, userId: m.thirdPartyUserId! };
  if (m.passwordHash !== undefined) u.passwordHash = m.passwordHash;
  if (primaryId !== undefined) u.primaryUserId = primaryId;
  return u;
}

/** The primary and its links (AuthRecipe.createPrimaryUsersForBulkImport, linkMultipleAccountsForBulkImport). */
function checkLinking(ctx: ImportCtx, user: BulkUser, primary: BulkLoginMethod): boolean {
  if (!user.loginMethods.some((m) => m.isPrimary) && user.loginMethods.length < 2) return false;
  if (!enabledFeatures(ctx).includes('account_linking'))
    fail('E019: Account linking feature is not enabled for this app. Please contact support to enable it.', false);
  const asUser = (m: BulkLoginMethod) => ({
    email: m.email,
    phoneNumber: m.phoneNumber,
    thirdParty: recipeUser(ctx, m, undefined).thirdParty,
  });
  if (findConflict(ctx as Ctx, asUser(primary), primary.tenantIds, undefined)) {
    fail(
      `E022: We tried to create the primary user for the userId ${primary.superTokensUserId} but the account info is already associated with another primary user.`,
    );
  }
  for (const m of user.loginMethods) {
    if (m === primary || !findConflict(ctx as Ctx, asUser(m), m.tenantIds, undefined)) continue;
    // The reference names the two ids this way round in E027.
    fail(
      `E027: We tried to link the userId ${primary.superTokensUserId} to the primary userId ${m.superTokensUserId} but the account info is already associated with another primary user.`,
    );
  }
  return true;
}

function checkMapping(ctx: ImportCtx, user: BulkUser): void {
  const ext = user.externalUserId;
  if (ext === undefined) return;
  if (ctx.state.externalToSt.has(key(ctx.app, ext))) fail(`E031: A user with externalId ${ext} already exists`);
  const asSt = ctx.state.maps.users.get(ext);
  if (asSt && asSt.app === ctx.app) fail('E030: Cannot create a userId mapping where the externalId is also a SuperTokens userID');
}

/** Every change of the import, or an ImportError. Call hashPlainTextPasswords first. */
export function importChanges(ctx: ImportCtx, user: BulkUser): { changes: Change[]; primaryId: string } {
  checkLoginMethods(ctx, user);
  const primary = primaryMethod(user.loginMethods);
  const linked = checkLinking(ctx, user, primary);
  checkMapping(ctx, user);
  if (user.totpDevices && user.totpDevices.length > 0 && !enabledFeatures(ctx).includes('mfa')) {
    fail('E037: MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.', false);
  }
  const app = ctx.app;
  const changes: Change[] = [];
  for (const m of user.loginMethods) changes.push(putUser(recipeUser(ctx, m, linked ? primary.superTokensUserId : undefined)));
  const ext = user.externalUserId;
  if (ext !== undefined) {
    changes.push({
      c: 'mappings',
      k: key(app, primary.superTokensUserId),
      v: { app, superTokensUserId: primary.superTokensUserId, externalUserId: ext },
    });
  }
  // The primary method is known by its external id from here on (verification, TOTP, metadata, roles).
  const idOf = (m: BulkLoginMethod) => (m === primary && ext !== undefined ? ext : m.superTokensUserId);
  for (const m of user.loginMethods) if (m.isVerified && m.email !== undefined) changes.push(...markVerified(ctx, idOf(m), m.email));
  const userId = idOf(primary);
  if (user.totpDevices && user.totpDevices.length > 0) {
    const devices: TotpDevice[] = [...(ctx.state.maps.totp.get(key(app, userId))?.devices ?? [])];
    for (const d of user.totpDevices) {
      const name = d.deviceName ?? defaultName(devices);
      if (devices.some((x) => x.name === name)) fail(`E036: java.sql.SQLException: a TOTP device named ${name} already exists`, false);
      devices.push({ name, secretKey: d.secretKey, period: d.period, skew: d.skew, verified: true, createdAt: ctx.now });
    }
    changes.push({ c: 'totp', k: key(app, userId), v: { app, userId, devices } });
  }
  if (user.userMetadata !== undefined) changes.push(metadataUpdate(ctx, userId, user.userMetadata).change);
  for (const r of user.userRoles ?? []) {
    if (!ctx.state.maps.roles.has(key(app, r.role)))
      fail('E034: Role does not exist! You need to pre-create the role before assigning it to the user.');
    for (const tenant of r.tenantIds) {
      const k = key(app, tenant, userId);
      const pending = changes.find((c) => c.c === 'userRoles' && c.k === k)?.v as { roles: string[] } | undefined;
      const current = pending?.roles ?? ctx.state.maps.userRoles.get(k)?.roles ?? [];
      if (current.includes(r.role)) continue;
      const next = { c: 'userRoles' as const, k, v: { app, tenant, userId, roles: [...current, r.role] } };
      const at = changes.findIndex((c) => c.c === 'userRoles' && c.k === k);
      if (at >= 0) changes[at] = next;
      else changes.push(next);
    }
  }
  return { changes, primaryId: primary.superTokensUserId };
}
