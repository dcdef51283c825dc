// The undo actions a rollback of a sync adds to the rollback's own (rollback/decide.ts calls them `sync` actions):
// each puts back what the sync changed, from the previous export's record (held in memory only: a TOTP secret or a
// hash never reaches a log or a message), and is read back like every rollback action.
// Invariant: a hash or TOTP secret read from the previous export stays in memory: never in a log, line or message.
import { LEGACY_DONE_KEY, LEGACY_ENTRY_KEY, LEGACY_PREVIOUS_KEY, readLegacyEntry, type LegacyPrevious } from 'auth-migrate-signin/protocol';
import type { CoreClient } from '../../../core-client/types.js';
import type { CanonicalUser } from '../../../records/types.js';
import { ActionFailed } from '../core.js';
import { applyStepIds, executeStep, newUserIds } from '../../strategies/steps/execute.js';
import { planUserSteps, type PlanOptions } from '../../plan/plan.js';
import { holdEmail } from '../../sync/plan-email.js';
import { appendChainLines, restoreKeys, type RestoreRecord } from '../../sync/chain-record.js';
import { CREATES_USER } from '../made.js';
import { stepShapeIds } from '../shape.js';
import type { JournalEntry } from '../../journal/journal.js';

export type SyncUndo =
  | { kind: 'restore-email'; recipeUserId: string; email: string }
  | { kind: 'set-verified'; userId: string; email: string; verified: boolean }
  | { kind: 'restore-contact'; recipeUserId: string; email?: string; phoneNumber?: string }
  | { kind: 'restore-thirdparty'; recipeUserId: string; thirdPartyId: string; thirdPartyUserId: string; email: string; isVerified: boolean }
  | { kind: 'restore-device'; userId: string; deviceName: string; secretKey: string; period: number; skew: number }
  | { kind: 'restore-login'; userId: string; login: { thirdPartyId: string; thirdPartyUserId: string; email: string; isVerified: boolean } }
  | { kind: 'restore-metadata'; userId: string; update: Record<string, unknown> }
  | { kind: 'remove-role' | 'restore-role'; userId: string; role: string; tenantId?: string }
  | { kind: 'restore-user'; record: CanonicalUser; plan: PlanOptions; into?: RestoreRecord }
  /** The legacy entry the sync replaced or ended, from the copy it kept (and the placeholder's hash, when it had one). */
  | { kind: 'restore-legacy-entry'; userId: string; email: string };

const norm = (s: string): string => s.trim().toLowerCase();
/** A swapped email's wait in a rollback: 50 tries 100 ms apart (the other user's undo runs meanwhile). */
const SWAP_TRIES = 50;
const SWAP_WAIT_MS = 100;

export function describeSyncUndo(u: SyncUndo): string {
  switch (u.kind) {
    case 'restore-email':
      return `put the email of ${u.recipeUserId} back to ${norm(u.email)}: PUT /recipe/user`;
    case 'set-verified':
      return `mark ${norm(u.email)} of ${u.userId} ${u.verified ? 'verified' : 'not verified'} again: POST /recipe/user/email/verify${u.verified ? '' : '/remove'}`;
    case 'restore-contact':
      return `put the ${u.email !== undefined ? `email ${u.email}` : `phone ${u.phoneNumber}`} of passwordless login ${u.recipeUserId} back: PUT /recipe/user`;
    case 'restore-thirdparty':
      return `put the email of the ${u.thirdPartyId} login ${u.thirdPartyUserId} back to ${norm(u.email)}: POST /recipe/signinup`;
    case 'restore-device':
      return `import the TOTP device "${u.deviceName}" the sync removed again, from the previous export: POST /recipe/totp/device/import`;
    case 'restore-login':
      return `sign the ${u.login.thirdPartyId} login ${u.login.thirdPartyUserId} the sync removed up again and link it to ${u.userId} (a new login id): POST /recipe/signinup, POST /recipe/accountlinking/user/link`;
    case 'restore-metadata':
      return `put the metadata keys ${Object.keys(u.update).join(', ')} of ${u.userId} back: PUT /recipe/user/metadata`;
    case 'remove-role':
      return `take the role ${u.role} the sync gave ${u.userId}${u.tenantId ? ` in tenant ${u.tenantId}` : ''}: POST /recipe/user/role/remove`;
    case 'restore-role':
      return `give ${u.userId} the role ${u.role} the sync took back${u.tenantId ? ` in tenant ${u.tenantId}` : ''}: PUT /recipe/user/role`;
    case 'restore-legacy-entry':
      return `put the legacy entry of ${u.userId} the sync replaced or ended back (and its placeholder password, if the sync imported another): PUT /recipe/user/metadata`;
    case 'restore-user':
      return `import user ${u.record.id}, removed by the sync, again from the previous export (a new user id; its sessions are gone)`;
  }
}

const raw = async (core: CoreClient, method: 'PUT' | 'POST', path: string, body: unknown, rid?: string, scope: 'app' | 'tenant' = 'app') =>
  JSON.parse((await core.raw({ method, path, scope, body, ...(rid ? { rid } : {}) })).text) as { status?: string };

async function loginOf(core: CoreClient, id: string) {
  const r = await core.getUserById(id);
  return r.status === 'OK' ? r.user.loginMethods.find((m) => m.recipeUserId === id) : undefined;
}

/** Carry one undo out and read its effect back; throws ActionFailed when the core does not show it. */
export async function performSyncUndo(core: CoreClient, u: SyncUndo): Promise<void> {
  switch (u.kind) {
    case 'restore-legacy-entry':
      return restoreLegacyEntry(core, u);
    case 'restore-email':
      return restoreEmail(core, u);
    case 'set-verified': {
      if (u.verified) {
        const t = await core.createEmailVerificationToken(u.userId, norm(u.email));
        if (t.status === 'OK') await core.verifyEmailToken(t.token);
      } else await raw(core, 'POST', '/recipe/user/email/verify/remove', { userId: u.userId, email: u.email });
      const now = (await core.isEmailVerified(u.userId, norm(u.email))).isVerified;
      return check(now === u.verified, `${norm(u.email)} is still ${now ? 'verified' : 'not verified'}`);
    }
    case 'restore-contact': {
      const r = await core.updatePasswordlessUser({
        recipeUserId: u.recipeUserId,
        ...(u.email !== undefined ? { email: u.email } : { phoneNumber: u.phoneNumber! }),
      });
      check(r.status === 'OK', `the core refused the contact back (${r.status})`);
      const lm = await loginOf(core, u.recipeUserId);
      return check(
        u.email !== undefined ? lm?.email === norm(u.email) : lm?.phoneNumber === u.phoneNumber,
        'the contact reads back otherwise',
      );
    }
    case 'restore-thirdparty': {
      const r = await core.thirdPartySignInUp({
        thirdPartyId: u.thirdPartyId,
        thirdPartyUserId: u.thirdPartyUserId,
        email: { id: u.email, isVerified: u.isVerified },
      });
      check(r.status === 'OK' && !r.createdNewUser, `the core did not update the login (${r.status})`);
      return check((await loginOf(core, u.recipeUserId))?.email === norm(u.email), 'the login reads back with another email');
    }
    case 'restore-device': {
      const list = await core.listTotpDevices(u.userId);
      if (!list.devices.some((d) => d.name === u.deviceName)) {
        await core.importTotpDevice({ userId: u.userId, deviceName: u.deviceName, secretKey: u.secretKey, period: u.period, skew: u.skew });
      }
      return check(
        (await core.listTotpDevices(u.userId)).devices.some((d) => d.name === u.deviceName),
        `TOTP device "${u.deviceName}" is not there`,
      );
    }
    case 'restore-login':
      return restoreLogin(core, u);
    case 'restore-metadata': {
      await core.updateUserMetadata(u.userId, u.update);
      const now = (await core.getUserMetadata(u.userId)).metadata;
      return check(
        Object.entries(u.update).every(([k, v]) => (v === null ? !(k in now) : JSON.stringify(now[k]) === JSON.stringify(v))),
        'the metadata reads back otherwise',
      );
    }
    case 'remove-role':
    case 'restore-role': {
      const on = u.tenantId ? core.forTenant(u.tenantId) : core;
      if (u.kind === 'remove-role')
        await raw(on, 'POST', '/recipe/user/role/remove', { userId: u.userId, role: u.role }, undefined, 'tenant');
      else {
        await on.createRole(u.role);
        await on.addUserRole(u.userId, u.role);
      }
      const has = (await on.getUserRoles(u.userId)).roles.includes(u.role);
      return check(has === (u.kind === 'restore-role'), `the user ${has ? 'still has' : 'has not'} the role ${u.role}`);
    }
    case 'restore-user':
      return restoreUser(core, u.record, u.plan, u.into);
  }
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new ActionFailed(what);
}

type Undo<K extends SyncUndo['kind']> = Extract<SyncUndo, { kind: K }>;

/** The legacy entry (and its placeholder password) from the copy the sync kept. */
async function restoreLegacyEntry(core: CoreClient, u: Undo<'restore-legacy-entry'>): Promise<void> {
  const previous = (await core.getUserMetadata(u.userId)).metadata[LEGACY_PREVIOUS_KEY] as LegacyPrevious | undefined;
  check(typeof previous?.entry?.mac === 'string', 'the sync kept no entry to put back');
  // The password first: until the entry is back, the old password cannot be set over anything.
  if (previous!.placeholderHash) {
    const r = await core.importPasswordHash({ email: u.email, passwordHash: previous!.placeholderHash, hashingAlgorithm: 'bcrypt' });
    check(r.didUserAlreadyExist, `the core created a new user for ${norm(u.email)}`);
  }
  await core.updateUserMetadata(u.userId, {
    [LEGACY_ENTRY_KEY]: previous!.entry,
    [LEGACY_DONE_KEY]: null,
    [LEGACY_PREVIOUS_KEY]: null,
  });
  const back = readLegacyEntry((await core.getUserMetadata(u.userId)).metadata);
  return check(!!back && 'entry' in back && back.entry.mac === previous!.entry.mac, 'the entry reads back otherwise');
}

/** An email put back; two users the sync swapped wait for each other through the hold address. */
async function restoreEmail(core: CoreClient, u: Undo<'restore-email'>): Promise<void> {
  let r = await raw(core, 'PUT', '/recipe/user', { recipeUserId: u.recipeUserId, email: u.email }, 'emailpassword');
  if (r.status === 'EMAIL_ALREADY_EXISTS_ERROR') {
    // Two users the sync swapped: park on the hold address so the other can take this one's email back, then
    // wait (bounded) for the email to be free. Still taken: a rerun of the rollback finds it on the hold address.
    await raw(core, 'PUT', '/recipe/user', { recipeUserId: u.recipeUserId, email: holdEmail(u.recipeUserId) }, 'emailpassword');
    for (let i = 0; i < SWAP_TRIES && r.status === 'EMAIL_ALREADY_EXISTS_ERROR'; i++) {
      await new Promise((done) => setTimeout(done, SWAP_WAIT_MS));
      r = await raw(core, 'PUT', '/recipe/user', { recipeUserId: u.recipeUserId, email: u.email }, 'emailpassword');
    }
  }
  check(
    r.status === 'OK',
    `the core refused the email back (${r.status}${r.status === 'EMAIL_ALREADY_EXISTS_ERROR' ? ': another user holds it; run the rollback again once it is free' : ''})`,
  );
  return check((await loginOf(core, u.recipeUserId))?.email === norm(u.email), `login ${u.recipeUserId} has another email`);
}

/** A third-party login the sync removed: signed up again and linked to the user (made primary first if need be). */
async function restoreLogin(core: CoreClient, u: Undo<'restore-login'>): Promise<void> {
  const r = await core.thirdPartySignInUp({
    thirdPartyId: u.login.thirdPartyId,
    thirdPartyUserId: u.login.thirdPartyUserId,
    email: { id: u.login.email, isVerified: u.login.isVerified },
  });
  check(r.status === 'OK', `the core refused the login (${r.status})`);
  if (r.status !== 'OK') return;
  const primary = await core.getUserById(u.userId);
  if (primary.status === 'OK' && !primary.user.isPrimaryUser) await core.createPrimaryUser(u.userId);
  await core.linkAccounts(r.recipeUserId, u.userId);
  const after = await core.getUserById(u.userId);
  return check(
    after.status === 'OK' && after.user.loginMethods.some((m) => m.recipeUserId === r.recipeUserId),
    'the login is not linked to the user',
  );
}

/**
 * A user the sync removed, imported again from the previous export under new ids, each step recorded in the first
 * run's journal (chain-record.ts) after its intent line, so the next sync and the full undo find the new ids. A
 * login found already there is this rollback's only when an earlier attempt wrote the intent; else it is someone
 * else's, made since the sync removed the user: nothing is imported over it.
 */
async function restoreUser(core: CoreClient, record: CanonicalUser, plan: PlanOptions, into?: RestoreRecord): Promise<void> {
  const keys = into ? restoreKeys(into.syncRun) : undefined;
  const line = (step: string, result: 'created' | 'already', ids: Record<string, string>): JournalEntry => ({
    type: 'step',
    user: into!.user,
    step,
    result,
    ids,
  });
  if (into && keys && !into.begun) await appendChainLines(into.journal, [line(keys.intent, 'already', {})]);
  const ids = newUserIds();
  const methods: string[] = [];
  const devices: string[] = [];
  let userId: string | undefined;
  for (const step of planUserSteps(record, plan)) {
    const out = await executeStep(step, ids, core);
    if (!out.ok) throw new ActionFailed(`${step.key}: ${out.status} ${out.message}`);
    if (out.result === 'already' && CREATES_USER(step.key) && !into?.begun)
      throw new ActionFailed(`${step.key}: the core holds this login already (made since the sync removed the user): not imported over it`);
    applyStepIds(step, out.ids, ids);
    const shape = stepShapeIds(step);
    if (CREATES_USER(step.key)) {
      userId ??= out.ids.recipeUserId;
      if (shape.sig) methods.push(shape.sig);
    }
    if (step.kind === 'map-user-id') userId = step.externalUserId;
    if (step.kind === 'import-totp') devices.push(step.deviceName);
    if (into && !into.bulk) {
      const result = out.result === 'created' || into.begun ? 'created' : 'already';
      await appendChainLines(into.journal, [line(step.key, result, result === 'created' ? { ...out.ids, ...shape } : out.ids)]);
    }
  }
  if (!into || !keys) return;
  const whole: JournalEntry[] = [];
  if (into.bulk && userId !== undefined)
    whole.push(line(into.bulk, 'created', { recipeUserId: userId, methods: JSON.stringify(methods), devices: JSON.stringify(devices) }));
  whole.push(line(keys.done, 'already', {}));
  await appendChainLines(into.journal, whole);
}
