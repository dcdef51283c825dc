// The rollback's decision for one user a sync changed or removed (pure, like rollback/decide.ts): per step of the
// sync, in reverse, the action that puts it back (the rollback's own remove-method, remove-device and demote for
// what the sync added; undo.ts's for what it changed or removed), only where the core still shows what the
// sync left; otherwise the user is kept and the change named. Hashes overwritten by the sync are listed: the core
// never gives a hash back.
// Invariant: a change is put back only where the core still shows what the sync left.
import { readLegacyDone } from 'auth-migrate-signin/protocol';
import type { RollbackAction, UserDecision } from '../decide.js';
import type { RunMade } from '../made.js';
import { DEFAULT_TOTP_PERIOD, DEFAULT_TOTP_SKEW, deviceNames, type PlanOptions } from '../../plan/plan.js';
import { toBase32Secret } from '../../../records/secrets.js';
import type { SyncMade, SyncState } from './state.js';
import type { SyncUndo } from './undo.js';
import { isHoldEmail } from '../../sync/plan-email.js';
import type { RestoreRecord } from '../../sync/chain-record.js';
import type { CoreUser } from '../../../core-client/types.js';

const norm = (s: string): string => s.trim().toLowerCase();

/** One user's undo as it is decided: the sync's record of it, the core now, and the actions, notes and reasons so far. */
interface Deciding {
  made: RunMade & { sync: SyncMade };
  state: SyncState;
  user: CoreUser;
  actions: RollbackAction[];
  notes: string[];
  kept: string[];
}

/** One step of the sync as the journal has it. */
type JournalledStep = NonNullable<ReturnType<SyncMade['steps']['get']>>;

const undo = (d: Deciding, u: SyncUndo): void => void d.actions.push({ kind: 'sync', undo: u });
const noOld = (d: Deciding, what: string): void =>
  void d.notes.push(`${what}: not put back (${d.made.sync.noPrevious ?? 'the previous export does not have the user as it was'})`);

export function decideSyncUndo(made: RunMade & { sync: SyncMade }, state: SyncState): UserDecision {
  const { steps } = made.sync;
  const created = [...steps].filter(([, s]) => s.result === 'created').reverse();
  const user = state.user;
  if (steps.get('sync:remove-user')?.result === 'created') return decideRemovedUser(made, state);
  if (!user) return { kind: 'gone', user: made.user, notes: [] };
  const d: Deciding = { made, state, user, actions: [], notes: [], kept: [] };
  // Each step's key is one of the logins' or one of the user's parts (the two sets of keys are apart).
  for (const [key, step] of created) if (!undoLoginStep(d, key, step)) undoUserPartStep(d, key, step);
  const { actions, notes, kept } = d;
  // Removals before demotion: a primary is made non-primary again only once the logins the sync linked are gone.
  actions.sort((a, b) => Number(a.kind === 'demote') - Number(b.kind === 'demote'));
  if (kept.length > 0) return { kind: 'kept', user: made.user, reasons: kept, notes };
  return { kind: actions.length > 0 ? 'undo' : 'nothing', user: made.user, actions, notes };
}

/** A user the sync removed: imported again from the previous export (unless it is back, or that record is gone). */
function decideRemovedUser(made: RunMade & { sync: SyncMade }, state: SyncState): UserDecision {
  const { old } = made.sync;
  const restore = made.sync.restore;
  const resuming = restore?.begun === true && !restore.whole; // an earlier attempt of this rollback began it
  if (state.user && !resuming) return { kind: 'nothing', user: made.user, notes: ['the user the sync removed is in the core again'] };
  if (!old)
    return {
      kind: 'kept',
      user: made.user,
      reasons: [],
      notes: [`the user the sync removed cannot be imported again (${made.sync.noPrevious ?? 'no previous record'})`],
    };
  const { whole: _whole, ...into } = restore ?? { whole: false };
  const actions: RollbackAction[] = [];
  actions.push({
    kind: 'sync',
    undo: { kind: 'restore-user', record: old, plan: made.sync.plan as PlanOptions, ...(restore ? { into: into as RestoreRecord } : {}) },
  });
  return {
    kind: 'undo',
    user: made.user,
    actions,
    notes: ['imported again with a new user id; what it had made since the first run (sessions) is gone'],
  };
}

/** The undo of a step on the user's logins (password, email, flags, contacts, linked logins); false: not such a step. */
function undoLoginStep(d: Deciding, key: string, step: JournalledStep): boolean {
  const { steps, old, now } = d.made.sync;
  const { user, state, notes, kept, actions } = d;
  const login = step.ids.login;
  const lm = user.loginMethods.find((m) => m.recipeUserId === login);
  if (key === 'sync:password') {
    if (steps.get('sync:legacy-end')?.result !== 'created')
      notes.push('the password hash the sync imported stays: the core never gives the one before back');
  } else if (key === 'sync:legacy-entry' || key === 'sync:legacy-end') {
    // Migration at first sign-in: the entry (and the placeholder password) the sync kept a copy of; never over a
    // password the user has since (signed in, or set one).
    const ended = readLegacyDone(state.metadata)?.via;
    if (ended === 'sign-in' || ended === 'password-set')
      kept.push(`the user ${ended === 'sign-in' ? 'signed in' : 'set a password'} since the sync`);
    else if (lm?.email !== undefined) undo(d, { kind: 'restore-legacy-entry', userId: login!, email: lm.email });
  } else if (key.startsWith('sync:email:') || (key.startsWith('sync:email-hold:') && !steps.has(key.replace('-hold', '')))) {
    // Only the email the sync wrote is given back (its new one, or the hold address of a swap it left midway):
    // an email the user changed in the core since the sync stays, and the rest of the sync's changes are undone.
    if (!old?.email) noOld(d, 'its email');
    else if (lm?.email === norm(old.email)) return true;
    else if (lm?.email !== norm(now?.email ?? '') && !isHoldEmail(lm?.email, login ?? ''))
      notes.push(`its email was changed in the core since the sync: left as it is (not put back to ${norm(old.email)})`);
    else undo(d, { kind: 'restore-email', recipeUserId: login!, email: old.email });
  } else if (key.startsWith('sync:verify:') || key.startsWith('sync:unverify:')) {
    // Only on the email the sync marked (the export's): a login whose email changed since keeps its flag.
    const marked = key.endsWith(':password') || key.endsWith(':otp') || key.endsWith(':phone') ? now?.email : lm?.email;
    if (lm?.email !== undefined && (marked === undefined || lm.email === norm(marked)))
      undo(d, { kind: 'set-verified', userId: login!, email: lm.email, verified: key.startsWith('sync:unverify:') });
    else if (lm?.email !== undefined) notes.push(`the verified flag of login ${login}: its email was changed since the sync: left`);
  } else if (key === 'sync:phone:phone' || key === 'sync:otp-email' || key === 'sync:otp-phone') {
    undoContact(d, key, login, lm);
  } else if (key.startsWith('sync:login:')) {
    undoThirdPartyEmail(d, key, login, lm);
  } else if ((key.startsWith('thirdparty:') || key === 'otp') && step.ids.recipeUserId) {
    const id = step.ids.recipeUserId;
    if (user.loginMethods.some((m) => m.recipeUserId === id) && id !== user.id)
      actions.push({ kind: 'remove-method', recipeUserId: id, aliases: [id], what: `the ${key} login the sync added` });
  } else if (key === 'primary') actions.push({ kind: 'demote', recipeUserId: user.id });
  else if (key.startsWith('sync:remove-login:')) {
    const ref = key.slice('sync:remove-login:'.length);
    const t = old?.thirdParty?.find((x) => `thirdparty:${x.providerId}:${x.userId}` === ref);
    if (!t || !old) noOld(d, `the ${ref} login it removed`);
    else
      undo(d, {
        kind: 'restore-login',
        userId: user.id,
        login: {
          thirdPartyId: t.providerId,
          thirdPartyUserId: t.userId,
          email: t.email ?? old.email ?? '',
          isVerified: t.emailVerified ?? false,
        },
      });
  } else return false;
  return true;
}

type Login = CoreUser['loginMethods'][number];

/** A phone number or OTP contact the sync wrote, still in the core: put back; another one is a change since: left. */
function undoContact(d: Deciding, key: string, login: string | undefined, lm: Login | undefined): void {
  const { old, now } = d.made.sync;
  const phone = key === 'sync:phone:phone' ? old?.phoneNumber : old?.otpFactors?.phoneNumber;
  const email = key === 'sync:otp-email' ? old?.otpFactors?.email : undefined;
  const wrote =
    key === 'sync:phone:phone' ? now?.phoneNumber : key === 'sync:otp-phone' ? now?.otpFactors?.phoneNumber : now?.otpFactors?.email;
  const shows = key === 'sync:otp-email' ? lm?.email : lm?.phoneNumber;
  if (!old || (phone === undefined && email === undefined)) noOld(d, `its ${key.slice(5)}`);
  else if (wrote !== undefined && shows !== (key === 'sync:otp-email' ? norm(wrote) : wrote))
    d.notes.push(`its ${key.slice(5)} was changed in the core since the sync: left as it is`);
  else undo(d, { kind: 'restore-contact', recipeUserId: login!, ...(email !== undefined ? { email } : { phoneNumber: phone! }) });
}

/** A third-party login's email the sync changed: put back while the core shows the sync's. */
function undoThirdPartyEmail(d: Deciding, key: string, login: string | undefined, lm: Login | undefined): void {
  const { old, now } = d.made.sync;
  const [providerId, ...rest] = key.slice('sync:login:thirdparty:'.length).split(':');
  const t = old?.thirdParty?.find((x) => x.providerId === providerId && x.userId === rest.join(':'));
  const t2 = now?.thirdParty?.find((x) => x.providerId === providerId && x.userId === rest.join(':'));
  const wrote = t2 ? (t2.email ?? now?.email) : undefined;
  if (!t || !old) noOld(d, `its ${providerId} login's email`);
  else if (wrote !== undefined && lm?.email !== norm(wrote))
    d.notes.push(`its ${providerId} login's email was changed since the sync (a sign-in with the provider): left as it is`);
  else
    undo(d, {
      kind: 'restore-thirdparty',
      recipeUserId: login!,
      thirdPartyId: t.providerId,
      thirdPartyUserId: t.userId,
      email: t.email ?? old.email ?? '',
      isVerified: t.emailVerified ?? old.emailVerified ?? false,
    });
}

/** The undo of a step on the user's other parts: TOTP devices, metadata, roles. */
function undoUserPartStep(d: Deciding, key: string, step: JournalledStep): void {
  const { old, now } = d.made.sync;
  const { user, state, notes, kept, actions } = d;
  if (key.startsWith('totp:')) {
    const name = step.ids.deviceName ?? key.slice(5);
    if (state.devices?.some((x) => x.name === name)) actions.push({ kind: 'remove-device', userId: user.id, deviceName: name });
  } else if (key.startsWith('sync:remove-totp:')) {
    const name = key.slice('sync:remove-totp:'.length);
    const names = old ? deviceNames(old) : [];
    const dev = old?.totp?.[names.indexOf(name)];
    if (!dev) noOld(d, `TOTP device "${name}"`);
    else if (state.devices?.some((x) => x.name === name)) kept.push(`a TOTP device "${name}" was added since the sync`);
    else
      undo(d, {
        kind: 'restore-device',
        userId: user.id,
        deviceName: name,
        secretKey: toBase32Secret(dev.secret, dev.encoding ?? 'base32'),
        period: dev.period ?? DEFAULT_TOTP_PERIOD,
        skew: dev.skew ?? DEFAULT_TOTP_SKEW,
      });
  } else if (key === 'sync:metadata') {
    if (!old) noOld(d, 'its metadata');
    else {
      // Only the keys the sync wrote (the exports disagree on them), and only while the core shows the sync's value.
      const update: Record<string, unknown> = {};
      const was = old.metadata ?? {};
      const wrote = now?.metadata ?? {};
      const j = (v: unknown): string => JSON.stringify(v) ?? 'undefined';
      for (const k of new Set([...Object.keys(was), ...Object.keys(wrote)])) {
        if (j(was[k]) === j(wrote[k]) || j(state.metadata?.[k]) === j(was[k])) continue;
        if (j(state.metadata?.[k]) !== j(wrote[k])) notes.push(`metadata key ${k} was changed in the core since the sync: left`);
        else update[k] = k in was ? was[k] : null;
      }
      if (Object.keys(update).length > 0) undo(d, { kind: 'restore-metadata', userId: user.id, update });
    }
  } else if (key.startsWith('user-role:') || key.startsWith('sync:remove-role:')) {
    const [tenant, ...role] = key.replace(/^(user-role|sync:remove-role):/, '').split(':');
    const has = state.roles.get(tenant!)?.includes(role.join(':')) ?? false;
    const give = key.startsWith('sync:remove-role:');
    if (has !== give)
      undo(d, {
        kind: give ? 'restore-role' : 'remove-role',
        userId: user.id,
        role: role.join(':'),
        ...(tenant ? { tenantId: tenant } : {}),
      });
  }
}
