// A rollback settles the intents a run left unresolved (journal.ts: an `intent` line with no line of the step after
// it: the run stopped between the request and its answer, or before the request) by reading the core. An intent is
// written only after the step's look-up found nothing, so what the core holds under the intended identity now is
// the migration's: it becomes a `created` step of the journal's user, exactly as if its line had reached the disk.
// What the core does not hold was never made (the request was not sent, or not applied). Invariant: nothing is
// taken for the migration's without an intent, and nothing an intent names is left because its answer was lost.
import type { CoreClient, LoginMethod } from '../../core-client/types.js';
import { CREATES_USER } from './made.js';

/** Per journal user: the steps whose intent has no step line after it, with the identity each carried. */
export type Unresolved = Map<string, Map<string, Record<string, string>>>;

const norm = (s: string | undefined): string => (s ?? '').trim().toLowerCase();

/** The login method the intent names, if the core holds it: matched by recipe and account info. */
async function findLogin(core: CoreClient, who: Record<string, string>): Promise<{ lm: LoginMethod; userId: string } | undefined> {
  const recipe = who.recipeId ?? recipeOfKind(who.kind);
  if (recipe === undefined) return undefined;
  let query;
  if (recipe === 'thirdparty') query = { thirdPartyId: who.thirdPartyId!, thirdPartyUserId: who.thirdPartyUserId! };
  else if (who.phoneNumber !== undefined) query = { phoneNumber: who.phoneNumber };
  else if (who.email !== undefined) query = { email: norm(who.email) };
  else return undefined;
  const { users } = await core.listUsersByAccountInfo(query);
  for (const user of users) {
    const lm = user.loginMethods.find(
      (m) =>
        m.recipeId === recipe &&
        (recipe === 'thirdparty'
          ? m.thirdParty?.id === who.thirdPartyId && m.thirdParty?.userId === who.thirdPartyUserId
          : who.phoneNumber !== undefined
            ? m.phoneNumber === who.phoneNumber
            : norm(m.email) === norm(who.email)),
    );
    if (lm) return { lm, userId: user.id };
  }
  return undefined;
}

function recipeOfKind(kind: string | undefined): string | undefined {
  if (kind === 'import-password') return 'emailpassword';
  if (kind === 'thirdparty-signinup') return 'thirdparty';
  if (kind === 'passwordless-signinup') return 'passwordless';
  return undefined;
}

/** The ids of a step the core shows made, or undefined when it shows nothing of it. */
async function settleOne(core: CoreClient, key: string, who: Record<string, string>): Promise<Record<string, string> | undefined> {
  if (key === 'bulk' || key === 'bulk-staged') {
    const found = await findLogin(core, who);
    if (!found) return undefined;
    const ids: Record<string, string> = { recipeUserId: who.externalUserId ?? found.userId };
    if (who.methods !== undefined) ids.methods = who.methods;
    if (who.devices !== undefined) ids.devices = who.devices;
    return ids;
  }
  if (CREATES_USER(key)) {
    const found = await findLogin(core, who);
    if (!found) return undefined;
    return { recipeUserId: found.lm.recipeUserId, ...(who.sig !== undefined ? { sig: who.sig } : {}) };
  }
  const userId = who.userId;
  if (userId === undefined) return undefined;
  if (key === 'map' && who.externalUserId !== undefined) {
    const map = await core.getUserIdMapping(who.externalUserId, 'EXTERNAL');
    return map.status === 'OK' ? { externalUserId: who.externalUserId } : undefined;
  }
  if (key.startsWith('totp:') && who.deviceName !== undefined) {
    const { devices } = await core.listTotpDevices(userId);
    return devices.some((d) => d.name === who.deviceName) ? { deviceName: who.deviceName } : undefined;
  }
  if (key.startsWith('link:') && who.primaryId !== undefined) {
    const r = await core.getUserById(who.primaryId);
    const linked = r.status === 'OK' && r.user.loginMethods.some((lm) => lm.recipeUserId === userId);
    return linked ? {} : undefined;
  }
  if (key === 'primary') {
    const r = await core.getUserById(userId);
    return r.status === 'OK' && r.user.isPrimaryUser ? {} : undefined;
  }
  // Steps whose undo is only a note (a verified flag, metadata, roles, a contact): nothing is taken off for them.
  return undefined;
}

/**
 * Settle every unresolved intent from the core; each found one is added to `users` (the journal's packed steps, as
 * plan.ts reads them) as a `created` step. The first factors first, so later steps see their user.
 */
export async function settleIntents(core: CoreClient, unresolved: Unresolved, users: Map<string, string>): Promise<number> {
  let settled = 0;
  for (const [user, intents] of unresolved) {
    const ordered = [...intents].sort(([a], [b]) => Number(!CREATES_USER(a)) - Number(!CREATES_USER(b)));
    for (const [key, who] of ordered) {
      const ids = await settleOne(core, key, who);
      if (ids === undefined) continue;
      const packed = JSON.stringify([key, 'created', ids]);
      const prev = users.get(user);
      users.set(user, prev === undefined ? packed : `${prev}\n${packed}`);
      settled++;
    }
  }
  unresolved.clear();
  return settled;
}
