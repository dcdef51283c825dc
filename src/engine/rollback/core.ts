// The rollback's requests: what the core holds now of a user the journal names (resolved to the core's own id
// through the mapping: the reference answers a removal by external id with 200 OK and removes nothing), and each
// undo action sent and then read back. An action counts when the core shows its effect, not when it answers OK.
// Invariant: an undo action counts only once the core shows its effect, whatever it answered.
import { CoreHttpError } from '../../core-client/errors.js';
import type { CoreClient, CoreUser } from '../../core-client/types.js';
import type { RunMade } from './made.js';
import type { RollbackAction, UserState } from './decide.js';
import { readSyncState } from './sync/state.js';
import { performSyncUndo } from './sync/undo.js';

/** Read the user the journal names: its SuperTokens id, mapping, user object and (where needed) TOTP devices. */
export async function readUserState(core: CoreClient, made: RunMade): Promise<UserState> {
  if (made.sync) {
    const sync = await readSyncState(core, made);
    return { ...(sync.user ? { user: sync.user } : {}), sync };
  }
  if (made.ref === undefined) return {};
  let stId = made.ref;
  let mapping: UserState['mapping'];
  let user: CoreUser | undefined;
  if (made.refIsCoreId) {
    // The run's own answer gave the core's id; the mapping, if any, is the run's (the core answers with it).
    user = await userOf(core, stId);
    const ext = made.externalId;
    const answersExt = user && ext !== undefined && (user.id === ext || user.loginMethods.some((lm) => lm.recipeUserId === ext));
    if (answersExt) mapping = { superTokensUserId: stId, externalUserId: ext! };
    else if (user && user.id !== stId && !user.loginMethods.some((lm) => lm.recipeUserId === stId)) mapping = await mappingOf(core, stId);
  } else {
    // An id the core answered (the external id where mapped): resolved to the core's own id first.
    mapping = await mappingOf(core, made.ref);
    stId = mapping?.superTokensUserId ?? made.ref;
    user = await userOf(core, stId);
  }
  const scope = { stId, ...(mapping ? { mapping } : {}) };
  if (!user) return scope;
  // Devices matter on a user the run created (one added since keeps it) and where the run imported some.
  const devices = made.created || made.devices.length > 0 ? (await core.listTotpDevices(user.id)).devices.map((d) => d.name) : undefined;
  return { ...scope, user, ...(devices ? { devices } : {}) };
}

async function mappingOf(core: CoreClient, id: string): Promise<UserState['mapping']> {
  const map = await core.getUserIdMapping(id, 'ANY');
  return map.status === 'OK' ? { superTokensUserId: map.superTokensUserId, externalUserId: map.externalUserId } : undefined;
}

/** A failed action: what the core still shows (or answered). */
export class ActionFailed extends Error {}

const post = (core: CoreClient, path: string, body: unknown) => core.raw({ method: 'POST', path, scope: 'app', body });

async function userOf(core: CoreClient, id: string): Promise<CoreUser | undefined> {
  const r = await core.getUserById(id);
  return r.status === 'OK' ? r.user : undefined;
}

/** The login method is gone: no user answers for it, or the one that does (its linked others) no longer holds it. */
async function methodGone(core: CoreClient, id: string, aliases: string[]): Promise<boolean> {
  const u = await userOf(core, id);
  return !u || !u.loginMethods.some((lm) => aliases.includes(lm.recipeUserId));
}

/**
 * Carry out one action and read its effect back; throws ActionFailed when the core does not show it. With
 * `readBackLater`, a removal is not read back here: its ids are handed over to be read back in bulk (a listing).
 */
export async function performAction(
  core: CoreClient,
  a: RollbackAction,
  force: boolean,
  readBackLater?: (kind: 'method' | 'user', ids: string[]) => void,
): Promise<void> {
  switch (a.kind) {
    case 'unlink': {
      await post(core, '/recipe/accountlinking/user/unlink', { recipeUserId: a.recipeUserId });
      const u = await userOf(core, a.recipeUserId);
      if (u && !u.loginMethods.every((lm) => a.aliases.includes(lm.recipeUserId)))
        throw new ActionFailed(`${a.recipeUserId} is still linked to user ${u.id}`);
      return;
    }
    case 'demote': {
      // Unlinking a primary that others are linked to deletes it (AuthRecipe.unlinkAccounts): only while alone.
      const before = await userOf(core, a.recipeUserId);
      if (!before || !before.isPrimaryUser) return;
      if (before.loginMethods.length > 1)
        throw new ActionFailed(`login methods were linked to ${a.recipeUserId} meanwhile: it stays primary`);
      await post(core, '/recipe/accountlinking/user/unlink', { recipeUserId: a.recipeUserId });
      if ((await userOf(core, a.recipeUserId))?.isPrimaryUser) throw new ActionFailed(`${a.recipeUserId} is still a primary user`);
      return;
    }
    case 'remove-device': {
      await core.removeTotpDevice(a.userId, a.deviceName);
      const left = (await core.listTotpDevices(a.userId)).devices.map((d) => d.name);
      if (left.includes(a.deviceName)) throw new ActionFailed(`TOTP device "${a.deviceName}" of ${a.userId} is still there`);
      return;
    }
    case 'remove-method': {
      await post(core, '/user/remove', { userId: a.recipeUserId, removeAllLinkedAccounts: false });
      if (readBackLater) readBackLater('method', a.aliases);
      else if (!(await methodGone(core, a.recipeUserId, a.aliases)))
        throw new ActionFailed(`login method ${a.recipeUserId} is still there`);
      return;
    }
    case 'remove-user': {
      await post(core, '/user/remove', { userId: a.userId, removeAllLinkedAccounts: true });
      if (readBackLater) readBackLater('user', a.aliases);
      else if (await userOf(core, a.userId)) throw new ActionFailed(`user ${a.userId} is still there`);
      return;
    }
    case 'remove-mapping':
      return removeMapping(core, a, force);
    case 'sync':
      return performSyncUndo(core, a.undo);
  }
}

/**
 * Take the run's mapping off a user that was there before. The reference refuses while the external id holds
 * data of another recipe (`UserId is already in use in EmailVerification recipe`, UserIdMapping.java:528-531 with
 * findNonAuthStoragesWhereUserIdIsUsedOrAssertIfUsed): the verification the run made, or one the mapping moved to the
 * external id (UserIdMapping.java:154-171). Then `force: true`, and the emails verified before are marked verified
 * again under the user's own id, so the user keeps what it had. Other recipes' data (sessions, metadata, roles,
 * devices under the external id) means the user was used since: refused unless `--force`.
 */
async function removeMapping(core: CoreClient, a: Extract<RollbackAction, { kind: 'remove-mapping' }>, force: boolean): Promise<void> {
  const before = await userOf(core, a.superTokensUserId);
  const verified = (before?.loginMethods ?? []).filter((lm) => lm.verified && lm.email !== undefined).map((lm) => lm.email!);
  const body = { userId: a.externalUserId, userIdType: 'EXTERNAL' };
  try {
    await post(core, '/recipe/userid/map/remove', force ? { ...body, force: true } : body);
  } catch (err) {
    const inUse = err instanceof CoreHttpError && err.status === 400 ? /already in use in (\w+) recipe/.exec(err.body)?.[1] : undefined;
    if (inUse !== 'EmailVerification') {
      if (inUse)
        throw new ActionFailed(
          `the core keeps the mapping: external id ${a.externalUserId} holds ${inUse} data (the user was used since the run); --force takes it off anyway`,
        );
      throw err;
    }
    await post(core, '/recipe/userid/map/remove', { ...body, force: true });
  }
  const left = await core.getUserIdMapping(a.externalUserId, 'EXTERNAL');
  if (left.status === 'OK') throw new ActionFailed(`the mapping to external id ${a.externalUserId} is still there`);
  for (const email of new Set(verified)) {
    if ((await core.isEmailVerified(a.superTokensUserId, email)).isVerified) continue;
    const token = await core.createEmailVerificationToken(a.superTokensUserId, email);
    if (token.status === 'OK') await core.verifyEmailToken(token.token);
    if (!(await core.isEmailVerified(a.superTokensUserId, email)).isVerified)
      throw new ActionFailed(`the mapping is off, but ${email} of ${a.superTokensUserId} is no longer verified`);
  }
}

/** The ids the core's listing shows (users' and login methods'), a page of 500 at a time. */
export async function listedIds(core: CoreClient): Promise<{ user: Set<string>; method: Set<string> }> {
  const ids = { user: new Set<string>(), method: new Set<string>() };
  let token: string | undefined;
  do {
    const page = await core.listUsers({ limit: 500, ...(token ? { paginationToken: token } : {}) });
    for (const u of page.users) {
      ids.user.add(u.id);
      for (const lm of u.loginMethods) ids.method.add(lm.recipeUserId);
    }
    token = page.nextPaginationToken;
  } while (token);
  return ids;
}
