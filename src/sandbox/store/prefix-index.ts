// A sorted index of (value, id) pairs answering "ids whose value starts with p" with binary searches, for the
// /users dashboard search. Writes are cheap: new pairs go to a small sorted buffer and removed pairs are marked,
// both folded into the main array once they pass a threshold (bulk imports must not pay O(n) per user).

type Pair = [value: string, id: string];

/** Past this many buffered adds or removals the main array is rebuilt by one merge (O(n)); below it, an insert
 * into the sorted buffer moves at most this many slots. */
const MAX_PENDING = 2048;

const cmp = (a: Pair, b: Pair): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
const pairKey = (value: string, id: string): string => `${value}\u0000${id}`;

/** First index of `list` whose pair is not before `probe` (by value, then id). */
function lowerBound(list: Pair[], probe: Pair): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(list[mid]!, probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

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
    const pair: Pair = [value, id];
    this.pending.splice(lowerBound(this.pending, pair), 0, pair);
    if (this.pending.length > MAX_PENDING) this.compact();
  }

  remove(value: string, id: string): void {
    const p = this.pending;
    const at = lowerBound(p, [value, id]);
    if (at < p.length && p[at]![0] === value && p[at]![1] === id) {
      p.splice(at, 1);
      return;
    }
    this.removed.add(pairKey(value, id));
    if (this.removed.size > MAX_PENDING) this.compact();
  }

  /** About how many pairs start with `prefix` (removed ones still counted): a cost estimate, O(log n). */
  estimate(prefix: string): number {
    const range = (list: Pair[]) => lowerBound(list, [prefix + '\uffff', '']) - lowerBound(list, [prefix, '']);
    return range(this.sorted) + range(this.pending);
  }

  /** Calls `visit(id)` for every pair whose value starts with `prefix`; `visit` returns false to stop. */
  forEachPrefixed(prefix: string, visit: (id: string) => boolean | void): void {
    const s = this.sorted;
    const checkRemoved = this.removed.size > 0;
    for (let i = lowerBound(s, [prefix, '']); i < s.length && s[i]![0].startsWith(prefix); i++) {
      const [value, id] = s[i]!;
      if (checkRemoved && this.removed.has(pairKey(value, id))) continue;
      if (visit(id) === false) return;
    }
    const p = this.pending;
    for (let i = lowerBound(p, [prefix, '']); i < p.length && p[i]![0].startsWith(prefix); i++) if (visit(p[i]![1]) === false) return;
  }

  /** Folds the buffer and the removals into the main array: one merge of two sorted arrays. */
  private compact(): void {
    const add = this.pending;
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
