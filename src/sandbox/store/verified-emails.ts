// The store's verified emails: keyed, like every collection, by key(app, user id, email), but held per app and user
// id under the record's own strings, so no composite key string is kept per record (half a million verified
// emails took 45 MB of keys alone). It answers the part of the Map interface the store and the routes use; a key
// that does not match its record (never written so) is kept as given in a plain Map beside.
import type { Verification } from './records.js';

const SEP = '\u0000';

/** key(app, user id, email) as its three parts, or undefined when it has not exactly three. */
function parts(k: string): [string, string, string] | undefined {
  const a = k.indexOf(SEP);
  const b = a < 0 ? -1 : k.indexOf(SEP, a + 1);
  if (b < 0 || k.indexOf(SEP, b + 1) >= 0) return undefined;
  return [k.slice(0, a), k.slice(a + 1, b), k.slice(b + 1)];
}

export class VerifiedEmails implements Iterable<[string, Verification]> {
  /** app -> user id -> its verified email (several emails of one user id: an array). */
  private readonly byApp = new Map<string, Map<string, Verification | Verification[]>>();
  /** Records whose key is not key(app, userId, email) of the record itself. */
  private readonly other = new Map<string, Verification>();
  private count = 0;

  get size(): number {
    return this.count + this.other.size;
  }

  get(k: string): Verification | undefined {
    const p = parts(k);
    const held = p ? this.byApp.get(p[0])?.get(p[1]) : undefined;
    if (p && held !== undefined) {
      const email = p[2];
      const found = Array.isArray(held) ? held.find((v) => v.email === email) : held.email === email ? held : undefined;
      if (found) return found;
    }
    return this.other.size > 0 ? this.other.get(k) : undefined;
  }

  has(k: string): boolean {
    return this.get(k) !== undefined;
  }

  /** Every verified email held under this (app, user id), whatever the email. */
  ofUser(app: string, userId: string): Verification[] {
    const held = this.byApp.get(app)?.get(userId);
    const out = held === undefined ? [] : Array.isArray(held) ? [...held] : [held];
    for (const v of this.other.values()) if (v.app === app && v.userId === userId) out.push(v);
    return out;
  }

  set(k: string, v: Verification): this {
    const p = parts(k);
    if (!p || p[0] !== v.app || p[1] !== v.userId || p[2] !== v.email) {
      this.delete(k);
      this.other.set(k, v);
      return this;
    }
    if (this.other.size > 0) this.other.delete(k);
    let users = this.byApp.get(v.app);
    if (!users) this.byApp.set(v.app, (users = new Map()));
    const held = users.get(v.userId);
    if (held === undefined) {
      users.set(v.userId, v);
      this.count++;
    } else if (!Array.isArray(held)) {
      if (held.email === v.email) users.set(v.userId, v);
      else {
        users.set(v.userId, [held, v]);
        this.count++;
      }
    } else {
      const at = held.findIndex((h) => h.email === v.email);
      users.set(v.userId, at < 0 ? [...held, v] : held.map((h, i) => (i === at ? v : h)));
      if (at < 0) this.count++;
    }
    return this;
  }

  delete(k: string): boolean {
    if (this.other.size > 0 && this.other.delete(k)) return true;
    const p = parts(k);
    if (!p) return false;
    const [app, userId, email] = p;
    const users = this.byApp.get(app);
    const held = users?.get(userId);
    if (!users || held === undefined) return false;
    const all = Array.isArray(held) ? held : [held];
    const kept = all.filter((v) => v.email !== email);
    if (kept.length === all.length) return false;
    if (kept.length === 0) users.delete(userId);
    else users.set(userId, kept.length === 1 ? kept[0]! : kept);
    if (users.size === 0) this.byApp.delete(app);
    this.count--;
    return true;
  }

  clear(): void {
    this.byApp.clear();
    this.other.clear();
    this.count = 0;
  }

  *[Symbol.iterator](): IterableIterator<[string, Verification]> {
    for (const users of this.byApp.values()) {
      for (const held of users.values()) {
        for (const v of Array.isArray(held) ? held : [held]) yield [`${v.app}${SEP}${v.userId}${SEP}${v.email}`, v];
      }
    }
    yield* this.other;
  }

  /**
   * The records at this instant, to write while the collection changes: their keys are joined only as the copy is
   * read (a snapshot rewrite would otherwise hold every key string at once, as the plain Map did).
   */
  captured(): Iterable<readonly [string, Verification]> {
    const records: Verification[] = [];
    for (const users of this.byApp.values()) {
      for (const held of users.values()) {
        if (Array.isArray(held)) records.push(...held);
        else records.push(held);
      }
    }
    const others = [...this.other];
    return {
      *[Symbol.iterator]() {
        for (const v of records) yield [`${v.app}${SEP}${v.userId}${SEP}${v.email}`, v] as const;
        yield* others;
      },
    };
  }

  entries(): IterableIterator<[string, Verification]> {
    return this[Symbol.iterator]();
  }

  *values(): IterableIterator<Verification> {
    for (const [, v] of this) yield v;
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this) yield k;
  }
}
