// The rollback's decision for one user, from what the run made (made.ts) and what the core holds now
// (core.ts): remove it, undo what the run added to a user that was there before, keep it because it
// changed since the run (a login method linked, a TOTP device added, an email changed), or nothing (gone).
// Pure: the dry run, the confirmation and the rollback itself all decide here, so they cannot disagree.
// Invariant: the decision is pure: the same journal and the same core give the same decision in the dry run, the
// question and the undo.
import type { CoreUser, LoginMethod } from '../../core-client/types.js';
import type { RunMade } from './made.js';
import { coreMethodForms, recipeOfSig } from './shape.js';
import { decideSyncUndo } from './sync/decide.js';
import type { SyncState } from './sync/state.js';
import { describeSyncUndo, type SyncUndo } from './sync/undo.js';

export type RollbackAction =
  /** A login method that was there before, which the run linked to a primary: unlinked, kept. */
  | { kind: 'unlink'; recipeUserId: string; aliases: string[] }
  /** One login method the run created: `POST /user/remove` with `removeAllLinkedAccounts: false`. */
  | { kind: 'remove-method'; recipeUserId: string; aliases: string[]; what: string }
  /** `--force` on a user whose login methods the journal does not name: the whole user. */
  | { kind: 'remove-user'; userId: string; aliases: string[] }
  /** A present user the run made primary: non-primary again (only while nothing else is linked to it). */
  | { kind: 'demote'; recipeUserId: string }
  | { kind: 'remove-device'; userId: string; deviceName: string }
  | { kind: 'remove-mapping'; externalUserId: string; superTokensUserId: string }
  /** Putting back what a sync changed or removed (rollback/sync/undo.ts). */
  | { kind: 'sync'; undo: SyncUndo };

/** What the core holds now of the user the journal names. */
export interface UserState {
  /** The SuperTokens id the journal's id resolves to (through the mapping when it is an external id). */
  stId?: string;
  mapping?: { superTokensUserId: string; externalUserId: string };
  /** The user holding it, as GET /user/id answers (ids are external ids where mapped); undefined: none. */
  user?: CoreUser;
  /** TOTP device names under the user's id; undefined when not read. */
  devices?: string[];
  /** A user a sync changed: what its undo looks at (sync/rollback.ts). */
  sync?: SyncState;
}

export type UserDecision =
  | { kind: 'remove' | 'undo'; user: string; actions: RollbackAction[]; notes: string[] }
  | { kind: 'kept'; user: string; reasons: string[]; notes: string[] }
  | { kind: 'gone' | 'nothing'; user: string; notes: string[] };

export interface DecideOptions {
  /** Remove the run's own login methods, devices and mapping even from a user changed since. */
  force?: boolean;
}

const describe = (lm: LoginMethod): string => {
  const what = lm.recipeId === 'thirdparty' ? (lm.thirdParty?.id ?? 'third-party') : lm.recipeId;
  return `${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} login`;
};

/** Both ids of a recipe user that has a mapping (the core answers the external one), or just its own. */
function aliasesOf(id: string, state: UserState): string[] {
  const m = state.mapping;
  return m && (id === m.superTokensUserId || id === m.externalUserId) ? [m.superTokensUserId, m.externalUserId] : [id];
}

/** The SuperTokens id of a recipe user id the core answered (its external id where mapped). */
const stOf = (id: string, state: UserState): string =>
  state.mapping && id === state.mapping.externalUserId ? state.mapping.superTokensUserId : id;

/**
 * The run's login methods on the core user: by id (per-user steps) or by fingerprint (the bulk paths); on the bulk
 * paths also the login methods whose fingerprint is gone, paired by recipe with a method the run's list lacks: the
 * run's, with their email (phone, provider email) changed since.
 */
function runMethods(made: RunMade, user: CoreUser, state: UserState): { ours: LoginMethod[]; changed: LoginMethod[]; unknown: boolean } {
  if (!made.bulk) {
    const ids = new Set(made.methods.flatMap((id) => aliasesOf(id, state)));
    const ours = user.loginMethods.filter((lm) => ids.has(lm.recipeUserId));
    const changed = ours.filter((lm) => {
      const sig = made.sigs.get(stOf(lm.recipeUserId, state)) ?? made.sigs.get(lm.recipeUserId);
      return sig !== undefined && !coreMethodForms(lm).includes(sig);
    });
    return { ours, changed, unknown: false };
  }
  if (!made.bulkMethods) return { ours: [], changed: [], unknown: true };
  const left = [...made.bulkMethods];
  const ours: LoginMethod[] = [];
  const rest: LoginMethod[] = [];
  for (const lm of user.loginMethods) {
    const forms = coreMethodForms(lm);
    const at = left.findIndex((sig) => forms.includes(sig));
    if (at < 0) rest.push(lm);
    else {
      left.splice(at, 1);
      ours.push(lm);
    }
  }
  const changed: LoginMethod[] = [];
  for (const lm of rest) {
    const at = left.findIndex((sig) => recipeOfSig(sig) === lm.recipeId.charAt(0));
    if (at < 0) continue;
    left.splice(at, 1);
    changed.push(lm);
  }
  // The run's, changed since: it counts as the run's (--force removes it), and as a change.
  return { ours: [...ours, ...changed], changed, unknown: false };
}

/** What changed since the run on a user it created (empty: as the run left it). */
function changesSince(made: RunMade, user: CoreUser, state: UserState, ours: LoginMethod[], changed: LoginMethod[]): string[] {
  const reasons: string[] = [];
  const linked = new Set(made.linkedExisting.flatMap((id) => aliasesOf(id, state)));
  for (const lm of user.loginMethods) {
    if (!ours.includes(lm) && !linked.has(lm.recipeUserId)) reasons.push(`${describe(lm)} was added since`);
  }
  for (const lm of changed) reasons.push(`the email (or phone) of ${describe(lm)} was changed since`);
  for (const d of state.devices ?? []) if (!made.devices.includes(d)) reasons.push(`TOTP device "${d}" was added since`);
  // The run's external id: its map step's, or on the bulk paths the id the import answered with.
  const runExternal = made.externalId ?? (made.bulk && state.mapping?.externalUserId === made.ref ? made.ref : undefined);
  if (state.mapping && state.mapping.externalUserId !== runExternal) reasons.push(`it was mapped to an external id since`);
  return reasons;
}

export function decideUser(made: RunMade, state: UserState, options: DecideOptions = {}): UserDecision {
  if (made.sync) return decideSyncUndo({ ...made, sync: made.sync }, state.sync ?? { roles: new Map() });
  const notes = [...made.notUndone];
  const user = state.user;
  if (!user || made.ref === undefined) return { kind: made.ref === undefined ? 'nothing' : 'gone', user: made.user, notes };
  const ref = made.ref;
  const { ours, changed, unknown } = runMethods(made, user, state);
  const actions: RollbackAction[] = [];
  const linkedHere = user.loginMethods.filter((lm) => made.linkedExisting.some((id) => aliasesOf(id, state).includes(lm.recipeUserId)));
  const unlinks = (): void => {
    for (const lm of linkedHere) {
      const id = stOf(lm.recipeUserId, state);
      if (user.loginMethods.length > 1 && id !== stOf(user.id, state))
        actions.push({ kind: 'unlink', recipeUserId: id, aliases: aliasesOf(id, state) });
    }
  };
  const removals = (methods: LoginMethod[]): void => {
    // The primary last: removed alone, it takes what hangs on the user (mapping, metadata, roles, devices) with it.
    const primary = stOf(user.id, state);
    const ordered = [...methods].sort(
      (a, b) => Number(stOf(a.recipeUserId, state) === primary) - Number(stOf(b.recipeUserId, state) === primary),
    );
    for (const lm of ordered) {
      const id = stOf(lm.recipeUserId, state);
      actions.push({ kind: 'remove-method', recipeUserId: id, aliases: aliasesOf(id, state), what: describe(lm) });
    }
  };

  if (made.created) {
    // The user the journal names was linked into another user since: that user is someone else's now.
    const isOwn = aliasesOf(state.stId ?? ref, state).includes(user.id) || ours.some((lm) => lm.recipeUserId === user.id);
    const reasons = unknown
      ? ['the journal does not say which login methods the import made (written by an older auth-migrate)']
      : changesSince(made, user, state, ours, changed);
    if (!isOwn) reasons.unshift('it was linked to another user since');
    if (reasons.length > 0 && !options.force) return { kind: 'kept', user: made.user, reasons, notes };
    if (!isOwn) return { kind: 'kept', user: made.user, reasons, notes }; // never removes another user's login
    if (unknown) {
      const st = state.stId ?? ref;
      actions.push({ kind: 'remove-user', userId: st, aliases: aliasesOf(st, state) });
      return { kind: 'remove', user: made.user, actions, notes };
    }
    unlinks();
    const foreign = user.loginMethods.filter((lm) => !ours.includes(lm) && !linkedHere.includes(lm));
    if (foreign.length > 0) {
      // --force on a user others added logins to: it lives on with them; the run's devices go, its mapping stays.
      for (const d of state.devices ?? [])
        if (made.devices.includes(d)) actions.push({ kind: 'remove-device', userId: user.id, deviceName: d });
      notes.push(`kept ${foreign.map(describe).join(', ')} added since, with the user's id${state.mapping ? ' and external id' : ''}`);
    }
    removals(ours);
    return { kind: 'remove', user: made.user, actions, notes };
  }

  // A user that was there before the run: only what the run added to it is taken off.
  unlinks();
  const removable: LoginMethod[] = [];
  for (const lm of ours) {
    if (stOf(lm.recipeUserId, state) === stOf(user.id, state)) continue; // the present user's own login
    if (changed.includes(lm) && !options.force) {
      notes.push(`kept ${describe(lm)} the run created: its email (or phone) was changed since`);
      continue;
    }
    removable.push(lm);
  }
  removals(removable);
  if (made.primaryMade && user.isPrimaryUser) {
    const left = user.loginMethods.length - removable.length - actions.filter((a) => a.kind === 'unlink').length;
    if (left <= 1) actions.push({ kind: 'demote', recipeUserId: stOf(user.id, state) });
    else notes.push('stays primary: login methods were linked to it since the run');
  }
  for (const d of state.devices ?? [])
    if (made.devices.includes(d)) actions.push({ kind: 'remove-device', userId: user.id, deviceName: d });
  if (made.mappingMade && made.externalId !== undefined && state.mapping?.externalUserId === made.externalId)
    actions.push({ kind: 'remove-mapping', externalUserId: made.externalId, superTokensUserId: state.mapping.superTokensUserId });
  return { kind: actions.length > 0 ? 'undo' : 'nothing', user: made.user, actions, notes };
}

/** The action in words, with the core's API (ids only: never a secret). */
export function describeAction(a: RollbackAction): string {
  switch (a.kind) {
    case 'unlink':
      return `unlink ${a.recipeUserId} (there before the run; kept): POST /recipe/accountlinking/user/unlink`;
    case 'demote':
      return `make ${a.recipeUserId} non-primary again (there before the run; kept): POST /recipe/accountlinking/user/unlink`;
    case 'remove-device':
      return `remove TOTP device "${a.deviceName}" of ${a.userId}: POST /recipe/totp/device/remove`;
    case 'remove-mapping':
      return `remove the mapping of ${a.superTokensUserId} to external id ${a.externalUserId}: POST /recipe/userid/map/remove`;
    case 'remove-method':
      return `remove ${a.what} ${a.recipeUserId}: POST /user/remove (removeAllLinkedAccounts: false)`;
    case 'remove-user':
      return `remove user ${a.userId} with every login method: POST /user/remove`;
    case 'sync':
      return describeSyncUndo(a.undo);
  }
}
