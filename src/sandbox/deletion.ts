// Removing users as the reference core 11.4.4 does, step for step (AuthRecipe.deleteUserHelper,
// AuthRecipe.java:1262-1387), over one transaction's view of the store: the changes are collected and committed
// together. What it follows:
//  - the id given may be external: the API resolves it first (StorageLayer.findStorageAndUserIdMappingForUser ANY:
//    a supertokens id, else a mapping's external id); with a mapping the login methods are removed by the
//    supertokens id and the non-auth data (metadata, roles, email verification, TOTP) by the external id, unless
//    that external id is itself a supertokens user (state A4: auth data only);
//  - removeAllLinkedAccounts true removes every login method of the group, each with its own non-auth data;
//  - false removes only that login method; removing a primary's own method while others stay leaves its id as the
//    group's primary id, with its mapping and non-auth data (a ghost, store/records.ts); the last method of a
//    ghost group takes the ghost with it.
import type { Ctx } from './context.js';
import { key, type Change, type LoginMethod, type UserIdMapping } from './store/index.js';
import { removeSession, sessionsOf } from './routes/session-tokens.js';

export interface PrimaryGroup {
  primaryId: string;
  isPrimary: boolean;
  /** The group's login methods (never a ghost). */
  methods: LoginMethod[];
}

/** StorageLayer.findStorageAndUserIdMappingForUser(..., ANY): undefined for an unknown id (UnknownUserIdException). */
export function resolveAny(ctx: Ctx, id: string): { mapping?: UserIdMapping } | undefined {
  const { state, app } = ctx;
  const bySt = state.maps.mappings.get(key(app, id));
  const st = state.externalToSt.get(key(app, id));
  const byExt = st === undefined ? undefined : state.maps.mappings.get(key(app, st));
  // UserIdMapping.getUserIdMapping(..., ANY): the mapping whose supertokens side is the id wins.
  const mapping = bySt ?? byExt;
  if (state.maps.users.get(id)?.app === app) return { mapping };
  return mapping ? { mapping } : undefined;
}

export class DeletionTx {
  readonly changes: Change[] = [];
  /** Records changed by this transaction: null once deleted. */
  private readonly users = new Map<string, LoginMethod | null>();
  private readonly mappingsGone = new Set<string>();
  private readonly nonAuthDone = new Set<string>();

  constructor(private readonly ctx: Ctx) {}

  user(id: string): LoginMethod | undefined {
    const changed = this.users.get(id);
    if (changed !== undefined) return changed ?? undefined;
    const u = this.ctx.state.maps.users.get(id);
    return u && u.app === this.ctx.app ? u : undefined;
  }

  private exists(id: string): boolean {
    return this.user(id) !== undefined;
  }

  /** getUserIdMapping(..., SUPERTOKENS) as this transaction sees it. */
  mappingOf(st: string): UserIdMapping | undefined {
    return this.mappingsGone.has(st) ? undefined : this.ctx.state.maps.mappings.get(key(this.ctx.app, st));
  }

  /** AuthRecipeSQLStorage.getPrimaryUserById: the group the id belongs to (or leads, as a ghost); none without methods. */
  groupOf(id: string): PrimaryGroup | undefined {
    const u = this.user(id);
    if (!u) return undefined;
    if (!u.primaryUserId) return u.ghost ? undefined : { primaryId: u.id, isPrimary: false, methods: [u] };
    const primaryId = u.primaryUserId;
    const methods: LoginMethod[] = [];
    for (const m of this.ctx.state.group(this.user(primaryId) ?? u)) {
      const now = this.user(m.id);
      if (now && !now.ghost && now.primaryUserId === primaryId) methods.push(now);
    }
    return methods.length === 0 ? undefined : { primaryId, isPrimary: true, methods };
  }

  put(u: LoginMethod): void {
    this.users.set(u.id, u);
    this.changes.push({ c: 'users', k: u.id, v: u });
  }

  /** deleteAuthRecipeUser: the login method; with its app row, the id itself (a ghost too) and its mapping. */
  private deleteAuth(id: string, withAppRow: boolean): void {
    const u = this.user(id);
    if (!u) return;
    if (withAppRow) {
      this.users.set(id, null);
      this.changes.push({ c: 'users', k: id });
      if (this.mappingOf(id)) {
        this.mappingsGone.add(id);
        this.changes.push({ c: 'mappings', k: key(this.ctx.app, id) });
      }
    } else if (!u.ghost) {
      const ghost: LoginMethod = {
        app: u.app,
        id: u.id,
        recipeId: u.recipeId,
        tenantIds: u.tenantIds,
        timeJoined: u.timeJoined,
        ghost: true,
      };
      if (u.primaryUserId) ghost.primaryUserId = u.primaryUserId;
      this.put(ghost);
    }
  }

  /** deleteNonAuthRecipeUser: sessions, metadata, email verification (rows and tokens), roles, TOTP devices and codes. */
  private deleteNonAuth(id: string): void {
    if (this.nonAuthDone.has(id)) return;
    this.nonAuthDone.add(id);
    const { state, app } = this.ctx;
    const del = (c: Change['c'], k: string, present: boolean): void => {
      if (present) this.changes.push({ c, k } as Change);
    };
    for (const s of sessionsOf(this.ctx)) if (s.recipeUserId === id) this.changes.push(removeSession(s));
    del('metadata', key(app, id), state.maps.metadata.has(key(app, id)));
    for (const v of state.maps.verified.ofUser(app, id)) del('verified', key(app, id, v.email), true);
    for (const k of state.evTokensById.get(key(app, id))) del('evTokens', k, true);
    const tenants = new Set(['public']);
    for (const t of state.maps.tenants.values()) if (t.app === app) tenants.add(t.tenantId);
    for (const t of tenants) {
      del('userRoles', key(app, t, id), state.maps.userRoles.has(key(app, t, id)));
      del('totpUsed', key(app, t, id), state.maps.totpUsed.has(key(app, t, id)));
    }
    del('totp', key(app, id), state.maps.totp.has(key(app, id)));
  }

  /** AuthRecipe.deleteUserHelper (AuthRecipe.java:1262-1387), line for line. */
  deleteUser(userId: string, removeAllLinkedAccounts: boolean, mapping: UserIdMapping | undefined): void {
    let authId: string;
    let nonAuthId: string | undefined;
    if (mapping) {
      if (this.exists(mapping.externalUserId)) {
        authId = userId; // state A4: auth tables only
        nonAuthId = undefined;
      } else {
        authId = mapping.superTokensUserId; // state A3
        nonAuthId = mapping.externalUserId;
      }
    } else {
      authId = userId;
      nonAuthId = userId;
    }
    const group = this.groupOf(authId);
    if (!group) return;
    let primaryNonAuthId: string | undefined;
    if (removeAllLinkedAccounts || group.methods.length === 1) {
      if (group.primaryId === authId) {
        primaryNonAuthId = nonAuthId;
        if (primaryNonAuthId === undefined) {
          this.deleteAuth(group.primaryId, true);
          return;
        }
      } else {
        primaryNonAuthId = this.mappingOf(group.primaryId)?.externalUserId ?? group.primaryId;
      }
    } else if (group.primaryId === authId) {
      // The primary's own method goes, the others stay: they may use its non-auth data.
      nonAuthId = undefined;
    }
    if (!removeAllLinkedAccounts) {
      this.deleteAuth(authId, authId !== group.primaryId);
      if (nonAuthId !== undefined) this.deleteNonAuth(nonAuthId);
      if (primaryNonAuthId !== undefined) {
        this.deleteNonAuth(primaryNonAuthId);
        this.deleteAuth(group.primaryId, true);
      }
      return;
    }
    for (const m of group.methods) {
      this.deleteUser(m.id, false, m.id === authId ? mapping : this.mappingOf(m.id));
    }
  }
}
