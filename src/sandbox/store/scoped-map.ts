// A string-keyed map for the store's indexes whose keys are `scope\0value` (records.ts `key()`): stored as one
// inner map per scope (app and tenant, say) keyed by the value alone, so an index entry holds the record's own
// string (its email, phone, provider user id) instead of a composite key string built for it: about 60 bytes less
// per entry, which at millions of users is the difference that matters. Lookups still take the composite key.
const SEP = '\u0000';

export class ScopedMap<V> {
  private readonly scopes = new Map<string, Map<string, V>>();
  private count = 0;

  /** `scopeParts`: how many leading parts of a composite key form the scope (the rest is the value). */
  constructor(private readonly scopeParts: number) {}

  get size(): number {
    return this.count;
  }

  /** A composite key as [scope, value]; a key with fewer parts has the empty scope. */
  splitKey(k: string): [string, string] {
    return this.split(k);
  }

  private split(k: string): [string, string] {
    if (this.scopeParts === 0) return ['', k];
    let at = -1;
    for (let i = 0; i < this.scopeParts; i++) {
      at = k.indexOf(SEP, at + 1);
      if (at < 0) return ['', k];
    }
    return [k.slice(0, at), k.slice(at + 1)];
  }

  get(k: string): V | undefined {
    const [scope, value] = this.split(k);
    return this.scopes.get(scope)?.get(value);
  }

  has(k: string): boolean {
    const [scope, value] = this.split(k);
    return this.scopes.get(scope)?.has(value) ?? false;
  }

  set(k: string, v: V): void {
    const [scope, value] = this.split(k);
    this.setIn(scope, value, v);
  }

  delete(k: string): boolean {
    const [scope, value] = this.split(k);
    return this.deleteIn(scope, value);
  }

  getIn(scope: string, value: string): V | undefined {
    return this.scopes.get(scope)?.get(value);
  }

  setIn(scope: string, value: string, v: V): void {
    let inner = this.scopes.get(scope);
    if (!inner) this.scopes.set(scope, (inner = new Map()));
    const before = inner.size;
    inner.set(value, v);
    this.count += inner.size - before;
  }

  deleteIn(scope: string, value: string): boolean {
    const inner = this.scopes.get(scope);
    if (!inner || !inner.delete(value)) return false;
    this.count--;
    if (inner.size === 0) this.scopes.delete(scope);
    return true;
  }
}
