// A multimap index of the store (key -> record keys): most keys hold one value, kept as a plain string, and a Set
// only where several records share the key (an email held by several login methods, say).
import { ScopedMap } from './scoped-map.js';

/** A multimap index: key -> record keys. Most keys hold one value, kept as a plain string (no Set). */
export class MultiIndex {
  /** With scopeParts, keys are held per scope (scoped-map.ts): see addIn/removeIn. */
  private readonly map: ScopedMap<string | Set<string>>;
  constructor(scopeParts = 0) {
    this.map = new ScopedMap(scopeParts);
  }
  add(k: string, v: string): void {
    const [scope, value] = this.map.splitKey(k);
    this.addIn(scope, value, v);
  }
  remove(k: string, v: string): void {
    const [scope, value] = this.map.splitKey(k);
    this.removeIn(scope, value, v);
  }
  /** `scope` and `value` as `key()` would join them; `value` is stored as given (the record's own string). */
  addIn(scope: string, value: string, v: string): void {
    const cur = this.map.getIn(scope, value);
    if (cur === undefined) this.map.setIn(scope, value, v);
    else if (typeof cur === 'string') {
      if (cur !== v) this.map.setIn(scope, value, new Set([cur, v]));
    } else cur.add(v);
  }
  removeIn(scope: string, value: string, v: string): void {
    const cur = this.map.getIn(scope, value);
    if (cur === undefined) return;
    if (typeof cur === 'string') {
      if (cur === v) this.map.deleteIn(scope, value);
      return;
    }
    cur.delete(v);
    if (cur.size === 1) this.map.setIn(scope, value, cur.values().next().value!);
  }
  get(k: string): ReadonlySet<string> {
    const cur = this.map.get(k);
    return cur === undefined ? EMPTY : typeof cur === 'string' ? new Set([cur]) : cur;
  }
}
const EMPTY: ReadonlySet<string> = new Set();
