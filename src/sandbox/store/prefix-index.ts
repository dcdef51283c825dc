// A sorted index of (value, id) pairs answering "ids whose value starts with p" with binary searches, for the
// /users dashboard search. Writes cost O(1): new pairs are appended to a buffer and removed pairs are marked.
// The first search after writes folds them in (a small buffer is only sorted; a large one is merged into the
// main array once), so imports and store loading never pay for an index that only searches read.

type Pair = [value: string, id: string];

/** A search finding more buffered pairs (or removal marks) than this rebuilds the main array by one merge; below
 * it the buffer is sorted and searched beside the main array. */
const MERGE_AT = 256;

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
  /** Pairs added since the last fold, in arrival order until a search sorts them. */
  private pending: Pair[] = [];
  private pendingSorted = true;
  /** Pairs still physically in `sorted` or `pending` that were removed. */
  private removed = new Set<string>();

  get size(): number {
    return this.sorted.length + this.pending.length - this.removed.size;
  }

  add(value: string, id: string): void {
    // A pair removed and put back (an update that kept it) only loses its mark.
    if (this.removed.size > 0 && this.removed.delete(pairKey(value, id))) return;
    this.pending.push([value, id]);
    this.pendingSorted = false;
  }

  remove(value: string, id: string): void {
    this.removed.add(pairKey(value, id));
  }

  /** About how many pairs start with `prefix` (removed ones still counted): a cost estimate, O(log n). */
  estimate(prefix: string): number {
    this.fold();
    const range = (list: Pair[]) => lowerBound(list, [prefix + '\uffff', '']) - lowerBound(list, [prefix, '']);
    return range(this.sorted) + range(this.pending);
  }

  /** Calls `visit(id)` for every pair whose value starts with `prefix`; `visit` returns false to stop. */
  forEachPrefixed(prefix: string, visit: (id: string) => boolean | void): void {
    this.fold();
    const checkRemoved = this.removed.size > 0;
    for (const list of [this.sorted, this.pending]) {
      for (let i = lowerBound(list, [prefix, '']); i < list.length && list[i]![0].startsWith(prefix); i++) {
        const [value, id] = list[i]!;
        if (checkRemoved && this.removed.has(pairKey(value, id))) continue;
        if (visit(id) === false) return;
      }
    }
  }

  /** Makes the index searchable: sorts a small buffer, or merges a large one (and the removals) into `sorted`. */
  private fold(): void {
    if (this.pending.length <= MERGE_AT && this.removed.size <= MERGE_AT) {
      if (!this.pendingSorted) this.pending.sort(cmp);
      this.pendingSorted = true;
      return;
    }
    const keep = this.removed.size > 0 ? ([v, id]: Pair) => !this.removed.has(pairKey(v, id)) : undefined;
    const add = keep ? this.pending.filter(keep) : this.pending;
    if (!this.pendingSorted) add.sort(cmp);
    const old = keep ? this.sorted.filter(keep) : this.sorted;
    const out: Pair[] = new Array(old.length + add.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < add.length) out[k++] = cmp(old[i]!, add[j]!) <= 0 ? old[i++]! : add[j++]!;
    while (i < old.length) out[k++] = old[i++]!;
    while (j < add.length) out[k++] = add[j++]!;
    this.sorted = out;
    this.pending = [];
    this.pendingSorted = true;
    this.removed = new Set();
  }
}
