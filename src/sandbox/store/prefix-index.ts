// A sorted index of (value, id) pairs answering "ids whose value starts with p" with a binary search, for the
// /users dashboard search. Writes are cheap: new pairs wait in a small unsorted buffer and removed pairs are
// marked, both folded into the sorted array once they pass a threshold (bulk imports must not pay O(n) per user).

type Pair = [value: string, id: string];

/** Past this many buffered adds or removals the sorted array is rebuilt (O(n)), so a query never scans more. */
const MAX_PENDING = 2048;

const cmp = (a: Pair, b: Pair): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
const pairKey = (value: string, id: string): string => `${value}\u0000${id}`;

export class PrefixIndex {
  private sorted: Pair[] = [];
  private pending: Pair[] = [];
  /** Pairs still physically in `sorted` that were removed. */
  private removed = new Set<string>();

  get size(): number {
    return this.sorted.length - this.removed.size + this.pending.length;
  }

  add(value: string, id: string): void {
    // A pair removed and put back (an update that kept it) only loses its mark.
    if (this.removed.size > 0 && this.removed.delete(pairKey(value, id))) return;
    this.pending.push([value, id]);
    if (this.pending.length > MAX_PENDING) this.compact();
  }

  remove(value: string, id: string): void {
    const p = this.pending;
    for (let i = p.length - 1; i >= 0; i--) {
      if (p[i]![0] === value && p[i]![1] === id) {
        p[i] = p[p.length - 1]!;
        p.pop();
        return;
      }
    }
    this.removed.add(pairKey(value, id));
    if (this.removed.size > MAX_PENDING) this.compact();
  }

  /** How many sorted pairs start with `prefix` (buffered ones not counted): a cost estimate, O(log n). */
  estimate(prefix: string): number {
    return this.lowerBound(prefix + '\uffff') - this.lowerBound(prefix);
  }

  /** Calls `visit(id)` for every pair whose value starts with `prefix`; `visit` returns false to stop. */
  forEachPrefixed(prefix: string, visit: (id: string) => boolean | void): void {
    const s = this.sorted;
    const checkRemoved = this.removed.size > 0;
    for (let i = this.lowerBound(prefix); i < s.length && s[i]![0].startsWith(prefix); i++) {
      const [value, id] = s[i]!;
      if (checkRemoved && this.removed.has(pairKey(value, id))) continue;
      if (visit(id) === false) return;
    }
    for (const [value, id] of this.pending) if (value.startsWith(prefix) && visit(id) === false) return;
  }

  private lowerBound(value: string): number {
    const s = this.sorted;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid]![0] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Folds the buffer and the removals into the sorted array: one sort of the buffer and one merge. */
  private compact(): void {
    const add = this.pending.sort(cmp);
    const old = this.removed.size > 0 ? this.sorted.filter(([v, id]) => !this.removed.has(pairKey(v, id))) : this.sorted;
    const out: Pair[] = new Array(old.length + add.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < add.length) out[k++] = cmp(old[i]!, add[j]!) <= 0 ? old[i++]! : add[j++]!;
    while (i < old.length) out[k++] = old[i++]!;
    while (j < add.length) out[k++] = add[j++]!;
    this.sorted = out;
    this.pending = [];
    this.removed = new Set();
  }
}
