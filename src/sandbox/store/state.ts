// The store's in-memory state: one map per collection plus the indexes every lookup uses, so no request
// ever scans the users. `apply` is the only way the state changes (live requests and log replay alike).
import {
  key,
  type Change,
  type CollectionName,
  type Collections,
  type EmailVerificationToken,
  type LoginMethod,
  type PasswordlessDevice,
} from './records.js';
import { MultiIndex } from './multi-index.js';
import { ScopedMap } from './scoped-map.js';
import { scopeKey } from './scope-key.js';
import { internTotp, internUser, internVerified } from './shared-strings.js';
import { SearchIndex } from './search-index.js';
import { VerifiedEmails } from './verified-emails.js';

type Maps = { [C in Exclude<CollectionName, 'verified'>]: Map<string, Collections[C]> } & { verified: VerifiedEmails };

/** The index key of a token's owner: the tokens of one (tenant, user id, email) are deleted together. */
export const evTokenOwner = (t: Pick<EmailVerificationToken, 'app' | 'tenant' | 'userId' | 'email'>): string =>
  key(t.app, t.tenant, t.userId, t.email);

/** Users of one app in /users order (timeJoined ASC, then id DESC), kept sorted lazily. */
export interface UserOrder {
  entries: Array<{ t: number; id: string }>;
  dirty: boolean;
}

export class StoreState {
  readonly maps: Maps = {
    users: new Map(),
    mappings: new Map(),
    verified: new VerifiedEmails(),
    evTokens: new Map(),
    pless: new Map(),
    totp: new Map(),
    totpUsed: new Map(),
    tenants: new Map(),
    meta: new Map(),
    metadata: new Map(),
    roles: new Map(),
    userRoles: new Map(),
    bulkImport: new Map(),
  };
  /** (app, tenant, email) -> emailpassword user id. Scoped maps: the value part is the record's own string. */
  readonly epByEmail = new ScopedMap<string>(2);
  /** (app, tenant, thirdPartyId, thirdPartyUserId) -> thirdparty user id. */
  readonly tpById = new ScopedMap<string>(3);
  /** (app, tenant, email|phone) -> passwordless user id. */
  readonly plessByEmail = new ScopedMap<string>(2);
  readonly plessByPhone = new ScopedMap<string>(2);
  /** (app, 'e'|'p'|'t', value) -> login method ids holding that account info (any recipe, any tenant). */
  readonly byAccountInfo = new MultiIndex(2);
  /** primary id -> ids of its login methods (itself included). */
  readonly linked = new MultiIndex();
  /** (app, external id) -> supertokens id. */
  readonly externalToSt = new Map<string, string>();
  /** (app, tenant, link code hash) -> pless device key; (app, tenant, e|p, value) -> device keys. */
  readonly plessByLinkCode = new Map<string, string>();
  readonly plessByContact = new MultiIndex();
  /** (app, tenant, user id, email) -> keys of its email verification tokens. */
  readonly evTokensByUser = new MultiIndex();
  /** (app, user id) -> keys of its email verification tokens, any tenant and email. */
  readonly evTokensById = new MultiIndex();
  /** Per app: ids in /users order. */
  readonly userOrder = new Map<string, UserOrder>();
  /** Sorted emails, domains, phones and third-party ids per (app, tenant, recipe): the /users search. */
  readonly search = new SearchIndex(() => this.maps.users.values());
  seq = 0;

  apply(change: Change): void {
    const map = this.maps[change.c] as unknown as Map<string, unknown>;
    const old = map.get(change.k);
    if (old !== undefined) this.unindex(change.c, change.k, old);
    if (change.v === undefined) map.delete(change.k);
    else {
      const k = this.share(change);
      map.set(k, change.v);
      this.index(change.c, k, change.v);
    }
    if (change.c === 'users') this.updateOrder(old as LoginMethod | undefined, change.v);
  }

  /**
   * A record read from the snapshot, whose keys are unique: apply() without first looking for an old record (one
   * lookup in a map of a million entries per record at start-up). False when the key was there already: the state
   * is then inconsistent and the caller must discard it (and read the file another way).
   */
  insert(change: Change): boolean {
    if (change.v === undefined) return false;
    const map = this.maps[change.c] as unknown as Map<string, unknown>;
    const before = map.size;
    const k = this.share(change);
    map.set(k, change.v);
    if (map.size === before) return false;
    this.index(change.c, k, change.v);
    if (change.c === 'users') this.updateOrder(undefined, change.v);
    return true;
  }

  /** Shares the record's repeated strings with those already held; returns the key to store it under. */
  private share(change: Change): string {
    const users = this.maps.users;
    // A login method's key is its id: the record's own string serves as the key (one copy, not two).
    if (change.c === 'users') return internUser(change.v!, change.k, users);
    if (change.c === 'verified') internVerified(change.v!, users);
    else if (change.c === 'totp') internTotp(change.v!, users);
    return change.k;
  }

  private index(c: CollectionName, k: string, v: unknown): void {
    if (c === 'users') this.indexUser(v as LoginMethod, true);
    else if (c === 'mappings') {
      const m = v as Collections['mappings'];
      this.externalToSt.set(key(m.app, m.externalUserId), m.superTokensUserId);
    } else if (c === 'pless') this.indexDevice(k, v as PasswordlessDevice, true);
    else if (c === 'evTokens') {
      this.evTokensByUser.add(evTokenOwner(v as EmailVerificationToken), k);
      this.evTokensById.add(key((v as EmailVerificationToken).app, (v as EmailVerificationToken).userId), k);
    }
  }

  private unindex(c: CollectionName, k: string, v: unknown): void {
    if (c === 'users') this.indexUser(v as LoginMethod, false);
    else if (c === 'mappings')
      this.externalToSt.delete(key((v as Collections['mappings']).app, (v as Collections['mappings']).externalUserId));
    else if (c === 'pless') this.indexDevice(k, v as PasswordlessDevice, false);
    else if (c === 'evTokens') {
      this.evTokensByUser.remove(evTokenOwner(v as EmailVerificationToken), k);
      this.evTokensById.remove(key((v as EmailVerificationToken).app, (v as EmailVerificationToken).userId), k);
    }
  }

  private indexUser(u: LoginMethod, add: boolean): void {
    const set = (m: ScopedMap<string>, scope: string, value: string, v: string): void => {
      if (add) m.setIn(scope, value, v);
      else if (m.getIn(scope, value) === v) m.deleteIn(scope, value);
    };
    for (const t of u.tenantIds) {
      const scope = scopeKey(u.app, t);
      if (u.recipeId === 'emailpassword' && u.email) set(this.epByEmail, scope, u.email, u.id);
      if (u.recipeId === 'thirdparty' && u.thirdParty) set(this.tpById, scopeKey(u.app, t, u.thirdParty.id), u.thirdParty.userId, u.id);
      if (u.recipeId === 'passwordless') {
        if (u.email) set(this.plessByEmail, scope, u.email, u.id);
        if (u.phoneNumber) set(this.plessByPhone, scope, u.phoneNumber, u.id);
      }
    }
    const multi = (scope: string, value: string): void =>
      add ? this.byAccountInfo.addIn(scope, value, u.id) : this.byAccountInfo.removeIn(scope, value, u.id);
    if (u.email) multi(scopeKey(u.app, 'e'), u.email);
    if (u.phoneNumber) multi(scopeKey(u.app, 'p'), u.phoneNumber);
    if (u.thirdParty) multi(scopeKey(u.app, 't'), key(u.thirdParty.id, u.thirdParty.userId));
    if (u.primaryUserId) {
      if (add) this.linked.add(u.primaryUserId, u.id);
      else this.linked.remove(u.primaryUserId, u.id);
    }
    this.search.update(u, add);
  }

  private updateOrder(old: LoginMethod | undefined, u: LoginMethod | undefined): void {
    const app = (u ?? old)!.app;
    let order = this.userOrder.get(app);
    if (!order) this.userOrder.set(app, (order = { entries: [], dirty: false }));
    if (old && u && old.timeJoined === u.timeJoined && old.primaryUserId === u.primaryUserId && old.ghost === u.ghost) return;
    if (old || !u || u.primaryUserId) {
      // Removals and linking change the order: rebuilt on the next listing.
      order.dirty = true;
      return;
    }
    const entries = order.entries;
    const last = entries[entries.length - 1];
    if (order.dirty) return;
    if (!last || last.t <= u.timeJoined) {
      // New users join at "now": at most the few created in the same millisecond sort after it.
      let at = entries.length;
      while (at > 0 && entries[at - 1]!.t === u.timeJoined && entries[at - 1]!.id < u.id) at--;
      if (at === entries.length) entries.push({ t: u.timeJoined, id: u.id });
      else entries.splice(at, 0, { t: u.timeJoined, id: u.id });
    } else order.dirty = true;
  }

  private indexDevice(k: string, d: PasswordlessDevice, add: boolean): void {
    for (const code of d.codes) {
      const ck = key(d.app, d.tenant, code.linkCodeHash);
      if (add) this.plessByLinkCode.set(ck, k);
      else if (this.plessByLinkCode.get(ck) === k) this.plessByLinkCode.delete(ck);
    }
    const multi = (ck: string): void => (add ? this.plessByContact.add(ck, k) : this.plessByContact.remove(ck, k));
    if (d.email) multi(key(d.app, d.tenant, 'e', d.email));
    if (d.phoneNumber) multi(key(d.app, d.tenant, 'p', d.phoneNumber));
  }

  /** The /users order of an app: top-level users (primary or unlinked) by group timeJoined ASC, id DESC. */
  orderedUsers(app: string): Array<{ t: number; id: string }> {
    let order = this.userOrder.get(app);
    if (!order) return [];
    if (order.dirty) {
      const entries: Array<{ t: number; id: string }> = [];
      for (const u of this.maps.users.values()) {
        if (u.app !== app || (u.primaryUserId && u.primaryUserId !== u.id)) continue;
        entries.push({ t: this.groupTimeJoined(u), id: u.id });
      }
      entries.sort((a, b) => a.t - b.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      order = { entries, dirty: false };
      this.userOrder.set(app, order);
    }
    return order.entries;
  }

  /** The login methods of a user's group (just itself when not linked; never a ghost primary, records.ts). */
  group(u: LoginMethod): LoginMethod[] {
    if (!u.primaryUserId) return [u];
    const out: LoginMethod[] = [];
    for (const id of this.linked.get(u.primaryUserId)) {
      const m = this.maps.users.get(id);
      if (m && !m.ghost) out.push(m);
    }
    return out;
  }

  /** The user's timeJoined: the earliest of its login methods (AuthRecipeUserInfo.addLoginMethod). */
  groupTimeJoined(u: LoginMethod): number {
    let t = Infinity;
    for (const m of this.group(u)) t = Math.min(t, m.timeJoined);
    return t === Infinity ? u.timeJoined : t;
  }
}
