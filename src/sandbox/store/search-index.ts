// The indexes of the /users dashboard search: per (app, tenant, recipe) sorted login-method values (email,
// email domain, phone number, third-party id), lower-cased, so a prefix query is two binary searches. Built by
// the first search, then kept up to date by every write.
import type { LoginMethod } from './records.js';
import { scopeKey } from './scope-key.js';
import { PrefixIndex } from './prefix-index.js';

/** e = whole email, d = text after an '@' of the email, p = phone number, t = third-party id. */
export type SearchKind = 'e' | 'd' | 'p' | 't';

/** The texts after each '@' of an email (normally one: its domain). */
export function emailDomains(email: string): string[] {
  const out = new Set<string>();
  for (let i = email.indexOf('@'); i >= 0; i = email.indexOf('@', i + 1)) out.add(email.slice(i + 1));
  return [...out];
}

export class SearchIndex {
  private readonly indexes = new Map<string, PrefixIndex>();
  /**
   * Built by the first search, from every login method then: until a dashboard searches, neither loading a store
   * nor importing pays for an index only searches read (at a million users ~0.5 s of start-up and ~45 MB).
   */
  private built = false;

  /** `users`: every login method of the store, read when the first search builds the index. */
  constructor(private readonly users: () => Iterable<LoginMethod>) {}
  /** Email domains repeat across many users: one string each (bounded, in case every user has their own). */
  private readonly domains = new Map<string, string>();

  private domain(d: string): string {
    const had = this.domains.get(d);
    if (had !== undefined) return had;
    if (this.domains.size < 100_000) this.domains.set(d, d);
    return d;
  }

  get(app: string, tenant: string, recipeId: string, kind: SearchKind): PrefixIndex | undefined {
    if (!this.built) {
      this.built = true;
      for (const u of this.users()) this.update(u, true);
    }
    return this.indexes.get(scopeKey(app, tenant, recipeId, kind));
  }

  /** Adds (or removes) every searchable value of a login method, in each of its tenants. */
  update(u: LoginMethod, add: boolean): void {
    if (!this.built) return;
    for (const tenant of u.tenantIds) {
      const put = (kind: SearchKind, value: string): void => {
        const k = scopeKey(u.app, tenant, u.recipeId, kind);
        let idx = this.indexes.get(k);
        if (!idx) {
          if (!add) return;
          this.indexes.set(k, (idx = new PrefixIndex()));
        }
        if (add) idx.add(value, u.id);
        else idx.remove(value, u.id);
      };
      if (u.email) {
        const email = u.email.toLowerCase();
        put('e', email);
        for (const d of emailDomains(email)) put('d', this.domain(d));
      }
      if (u.phoneNumber) put('p', u.phoneNumber.toLowerCase());
      if (u.thirdParty) put('t', u.thirdParty.id.toLowerCase());
    }
  }
}
