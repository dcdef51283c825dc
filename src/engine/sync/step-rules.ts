// The exactly-once rule's entries for the sync's step kinds (sync/steps.ts), spread into STEP_RULES
// (strategies/steps/rules.ts): each sends its request and finds its effect by reading the core back, so an attempt answered
// 500 after it was applied, or a repeat after a crash, is recognised instead of done twice. Calls follow the
// reference core 11.4.4 (file:line in each comment; docs/migration.md, "Two-pass cutover").
// Invariant: each kind finds its effect by reading the core back, so a repeat is recognised instead of done twice.
import { endingUpdate, LEGACY_ENTRY_KEY, LEGACY_PREVIOUS_KEY, readLegacyEntry, type LegacyPrevious } from 'auth-migrate-signin/protocol';
import type { CoreClient, RawRequest } from '../../core-client/types.js';
import type { Found, StepRule } from '../strategies/steps/rules.js';
import { done, fail, resolveRef, type StepOutcome } from '../strategies/steps/ids.js';
import { foreign, isThirdPartyLogin, loginIn } from '../strategies/steps/answer-checks.js';
import type { SyncStep, SyncStepKind } from './steps.js';

type SyncRules = { [K in SyncStepKind]: StepRule<Extract<SyncStep, { kind: K }>> };

const norm = (email: string): string => email.trim().toLowerCase();

async function call(core: CoreClient, req: RawRequest): Promise<Record<string, unknown>> {
  const r = await core.raw(req);
  return JSON.parse(r.text) as Record<string, unknown>;
}

const status = (o: Record<string, unknown>): string => (typeof o.status === 'string' ? o.status : 'UNKNOWN');

/** The login method with this recipe user id in the user the core answers for it, if any. */
async function loginOf(core: CoreClient, recipeUserId: string) {
  const r = await core.getUserById(recipeUserId);
  if (r.status !== 'OK') return undefined;
  return r.user.loginMethods.find((m) => m.recipeUserId === recipeUserId);
}

/**
 * A write counts once read back: the effect found just after the answer. Not found: the OK was not this request's
 * (a proxy's bare OK or replayed body, issue 31), so the attempt is unclear: the core is read again and the write
 * sent again, and the user fails only once the budget is spent.
 */
function readBack(found: Found, still: string, method: string, path: string): StepOutcome {
  if (!found) foreign(method, path, `the core answered OK but ${still}`);
  return done(true, found.ids);
}

function refused(o: Record<string, unknown>, what: string): StepOutcome {
  const reason = typeof o.reason === 'string' ? `: ${o.reason}` : '';
  return fail(status(o), `${what}${reason}`);
}

export const SYNC_RULES: SyncRules = {
  'replace-password-hash': {
    calls: 2, // the login looked up by its email, then the import
    describe: (step) =>
      `import the changed password hash (${step.hashingAlgorithm}) over the old one of ${step.email}: GET /users/by-accountinfo, POST /recipe/user/passwordhash/import`,
    // No look-up of the effect: a hash cannot be read back. The import's answer is the evidence, and before it the
    // login is found by its email, so the import overwrites our user's hash and never creates another user
    // (EmailPassword.importUserWithPasswordHash: an existing email's hash is overwritten, didUserAlreadyExist).
    async send(step, _ids, core) {
      const email = norm(step.email);
      const before = await core.listUsersByAccountInfo({ email });
      const ours = before.users.some((u) =>
        u.loginMethods.some((m) => m.recipeId === 'emailpassword' && m.email === email && m.recipeUserId === step.recipeUserId),
      );
      if (!ours)
        return fail('LOGIN_NOT_FOUND', `no email-password login ${step.recipeUserId} has the email ${email}: the hash was not imported`);
      const r = await core.importPasswordHash({
        email: step.email,
        passwordHash: step.passwordHash,
        hashingAlgorithm: step.hashingAlgorithm,
      });
      // A hash cannot be read back: the answer must name the login whose hash was sent (issue 31).
      const isOurs = (m: { recipeId: string; email?: string }) => m.recipeId === 'emailpassword' && m.email === email;
      const { method } = loginIn(r, isOurs, { method: 'POST', path: '/recipe/user/passwordhash/import', sent: `with the email ${email}` });
      if (!r.didUserAlreadyExist || method.recipeUserId !== step.recipeUserId)
        return fail('UNEXPECTED_NEW_USER', `the core created a new user for ${email} instead of updating ${step.recipeUserId}`);
      return done(true);
    },
  },

  'change-email': {
    // A dry run plans against the state the earlier run left, whose logins are named by their step keys.
    describe: (step) =>
      `change the email of the email-password login${step.recipeUserId === 'password' ? '' : ` ${step.recipeUserId}`} to ${step.email}: PUT /recipe/user`,
    async find(step, _ids, core) {
      return (await loginOf(core, step.recipeUserId))?.email === norm(step.email) ? { ids: {} } : undefined;
    },
    // webserver/api/emailpassword/UserAPI.java doPut -> EmailPassword.updateUsersEmailOrPassword (:641).
    async send(step, _ids, core) {
      const o = await call(core, {
        method: 'PUT',
        path: '/recipe/user',
        scope: 'app',
        rid: 'emailpassword',
        body: { recipeUserId: step.recipeUserId, email: step.email },
      });
      if (status(o) !== 'OK') return refused(o, `the core refused to change the email of ${step.recipeUserId} to ${norm(step.email)}`);
      return readBack(
        await SYNC_RULES['change-email'].find!(step, _ids, core),
        `login ${step.recipeUserId} still has another email`,
        'PUT',
        '/recipe/user',
      );
    },
  },

  'unverify-email': {
    describe: (step) =>
      `mark ${step.email} of the ${step.user} login not verified (as the source says): POST /recipe/user/email/verify/remove`,
    async find(step, ids, core) {
      return (await core.isEmailVerified(resolveRef(ids, step.user), norm(step.email))).isVerified ? undefined : { ids: {} };
    },
    // webserver/api/emailverification/UnverifyEmailAPI.java: always OK, on the user id as given.
    async send(step, ids, core) {
      await call(core, {
        method: 'POST',
        path: '/recipe/user/email/verify/remove',
        scope: 'app',
        body: { userId: resolveRef(ids, step.user), email: step.email },
      });
      return readBack(
        await SYNC_RULES['unverify-email'].find!(step, ids, core),
        `${norm(step.email)} is still verified`,
        'POST',
        '/recipe/user/email/verify/remove',
      );
    },
  },

  'update-thirdparty': {
    describe: (step) =>
      `update the ${step.thirdPartyId} login ${step.thirdPartyUserId} to ${step.email}${step.isVerified ? ' (verified)' : ''}: POST /recipe/signinup`,
    async find(step, _ids, core) {
      const lm = await loginOf(core, step.recipeUserId);
      return lm?.email === norm(step.email) && (!step.isVerified || lm.verified) ? { ids: {} } : undefined;
    },
    // ThirdParty.signInUp: an existing (thirdPartyId, thirdPartyUserId) is signed in and its email updated.
    async send(step, _ids, core) {
      const r = await core.thirdPartySignInUp({
        thirdPartyId: step.thirdPartyId,
        thirdPartyUserId: step.thirdPartyUserId,
        email: { id: step.email, isVerified: step.isVerified },
      });
      if (r.status !== 'OK') return fail(r.status, r.reason);
      const sent = `${step.thirdPartyId} ${step.thirdPartyUserId}`;
      loginIn(r, isThirdPartyLogin(step), { method: 'POST', path: '/recipe/signinup', sent }, r.recipeUserId);
      if (r.createdNewUser)
        return fail('UNEXPECTED_NEW_USER', `the core created a new ${step.thirdPartyId} user instead of updating ${step.recipeUserId}`);
      return readBack(
        await SYNC_RULES['update-thirdparty'].find!(step, _ids, core),
        `the ${step.thirdPartyId} login reads back with another email`,
        'POST',
        '/recipe/signinup',
      );
    },
  },

  'remove-totp-device': {
    describe: (step) => `remove the TOTP device "${step.deviceName}" the migration created: POST /recipe/totp/device/remove`,
    async find(step, ids, core) {
      const list = await core.listTotpDevices(resolveRef(ids, step.user));
      return list.devices.some((d) => d.name === step.deviceName) ? undefined : { ids: { removedDevice: step.deviceName } };
    },
    // webserver/api/totp/RemoveTotpDeviceAPI.java: OK with didDeviceExist.
    async send(step, ids, core) {
      await core.removeTotpDevice(resolveRef(ids, step.user), step.deviceName);
      return readBack(
        await SYNC_RULES['remove-totp-device'].find!(step, ids, core),
        `still lists the TOTP device "${step.deviceName}"`,
        'POST',
        '/recipe/totp/device/remove',
      );
    },
  },

  'remove-login': {
    describe: (step) =>
      `remove the ${step.description} login ${step.recipeUserId} the migration created (the user keeps its other logins): POST /user/remove`,
    async find(step, _ids, core) {
      return (await loginOf(core, step.recipeUserId)) ? undefined : { ids: { removedLogin: step.recipeUserId } };
    },
    // webserver/api/core/DeleteUserAPI.java, AuthRecipe.deleteUser (:1249): removeAllLinkedAccounts false removes
    // this login method only; the others stay linked to the primary user.
    async send(step, _ids, core) {
      await call(core, {
        method: 'POST',
        path: '/user/remove',
        scope: 'app',
        body: { userId: step.recipeUserId, removeAllLinkedAccounts: false },
      });
      return readBack(
        await SYNC_RULES['remove-login'].find!(step, _ids, core),
        `still has the login ${step.recipeUserId}`,
        'POST',
        '/user/remove',
      );
    },
  },

  'set-metadata': {
    describe: (step) =>
      `bring the metadata keys ${[...Object.keys(step.set), ...step.remove].join(', ')} to the export's state: PUT /recipe/user/metadata`,
    async find(step, ids, core) {
      const current = (await core.getUserMetadata(resolveRef(ids, step.user))).metadata;
      const same = Object.entries(step.set).every(([k, v]) => k in current && JSON.stringify(current[k]) === JSON.stringify(v));
      return same && step.remove.every((k) => !(k in current)) ? { ids: {} } : undefined;
    },
    // UserMetadata.updateUserMetadata: top-level keys replaced, a key set to null removed.
    async send(step, ids, core) {
      const update: Record<string, unknown> = { ...step.set };
      for (const k of step.remove) update[k] = null;
      await core.updateUserMetadata(resolveRef(ids, step.user), update);
      return readBack(
        await SYNC_RULES['set-metadata'].find!(step, ids, core),
        'the metadata read back differs from the export',
        'PUT',
        '/recipe/user/metadata',
      );
    },
  },

  // Migration at first sign-in (docs/signin-protocol.md): the waiting entry on the login's metadata. An entry that
  // ended meanwhile (a sign-in, a password set) is left: the user's own password wins over any export.
  'replace-legacy-entry': {
    describe: (step) =>
      `replace the waiting legacy entry of ${step.recipeUserId} with the export's new ${step.entry.algorithm} hash (signed): GET and PUT /recipe/user/metadata`,
    async find(step, _ids, core) {
      const shape = readLegacyEntry((await core.getUserMetadata(step.recipeUserId)).metadata);
      return shape && 'entry' in shape && shape.entry.mac === step.entry.mac ? { ids: {} } : undefined;
    },
    async send(step, ids, core) {
      const shape = readLegacyEntry((await core.getUserMetadata(step.recipeUserId)).metadata);
      if (!shape || !('entry' in shape)) return done(false);
      const previous: LegacyPrevious = { entry: shape.entry };
      await core.updateUserMetadata(step.recipeUserId, { [LEGACY_ENTRY_KEY]: step.entry, [LEGACY_PREVIOUS_KEY]: previous });
      return readBack(
        await SYNC_RULES['replace-legacy-entry'].find!(step, ids, core),
        'the old entry is still there',
        'PUT',
        '/recipe/user/metadata',
      );
    },
  },

  'end-legacy-entry': {
    describe: (step) =>
      `end the waiting legacy entry of ${step.recipeUserId} before its new hash is imported (kept for a rollback): GET and PUT /recipe/user/metadata`,
    async send(step, _ids, core) {
      const shape = readLegacyEntry((await core.getUserMetadata(step.recipeUserId)).metadata);
      if (!shape || !('entry' in shape)) return done(false);
      const previous: LegacyPrevious = { entry: shape.entry, ...(step.placeholderHash ? { placeholderHash: step.placeholderHash } : {}) };
      await core.updateUserMetadata(step.recipeUserId, {
        ...endingUpdate(shape.entry, 'sync', Date.now()),
        [LEGACY_PREVIOUS_KEY]: previous,
      });
      const after = (await core.getUserMetadata(step.recipeUserId)).metadata;
      return LEGACY_ENTRY_KEY in after ? fail('NOT_APPLIED', 'the core answered OK but the entry is still there') : done(true);
    },
  },

  'remove-role': {
    describe: (step) =>
      `take the role ${step.role}${step.tenantId ? ` in tenant ${step.tenantId}` : ''} the migration gave: POST /recipe/user/role/remove`,
    async find(step, ids, core) {
      const on = step.tenantId ? core.forTenant(step.tenantId) : core;
      return (await on.getUserRoles(resolveRef(ids, step.user))).roles.includes(step.role) ? undefined : { ids: {} };
    },
    // webserver/api/userroles/RemoveUserRoleAPI.java: OK with didUserHaveRole, or UNKNOWN_ROLE_ERROR.
    async send(step, ids, core) {
      const on = step.tenantId ? core.forTenant(step.tenantId) : core;
      const o = await call(on, {
        method: 'POST',
        path: '/recipe/user/role/remove',
        scope: 'tenant',
        body: { userId: resolveRef(ids, step.user), role: step.role },
      });
      // No such role: the user cannot have it (read back all the same: the answer may be another request's).
      if (status(o) === 'UNKNOWN_ROLE_ERROR' && (await SYNC_RULES['remove-role'].find!(step, ids, core))) return done(false);
      return readBack(
        await SYNC_RULES['remove-role'].find!(step, ids, core),
        `the user still has the role ${step.role}`,
        'POST',
        '/recipe/user/role/remove',
      );
    },
  },
};
