// A sorted index of (value, id) pairs answering "ids whose value starts with p" with binary searches, for the
// /users dashboard search. Writes cost O(1): new pairs are appended to a buffer and removed pairs are marked.
// The first search after writes folds them in (a small buffer is only sorted; a large one is merged into the
// main array once), so imports and store loading never pay for an index that only searches read.
// Pairs are held in two parallel arrays (values, ids) rather than one [value, id] array each: a pair costs two
// slots (16 bytes) instead of about 80, which at a million users is over 100 MB.

/** A search finding more buffered pairs (or removal marks) than this rebuilds the main array by one merge; below
 * it the buffer is sorted and searched beside the main array. */
const MERGE_AT = 256;

const cmp = (av: string, ai: string, bv: string, bi: string): number => (av < bv ? -1 : av > bv ? 1 : ai < bi ? -1 : ai > bi ? 1 : 0);
const pairKey = (value: string, id: string): string => `${value}\u0000${id}`;

/** Pairs as parallel arrays: pair i is (values[i], ids[i]). */
interface Pairs {
  values: string[];
  ids: string[];
}

const noPairs = (): Pairs => ({ values: [], ids: [] });

/** First index of `list` whose pair is not before (value, id). */
function lowerBound(list: Pairs, value: string, id: string): number {
  let lo = 0;
  let hi = list.values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(list.values[mid]!, list.ids[mid]!, value, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The pairs of `list` that `keep` accepts, sorted. */
function sortedCopy(list: Pairs, keep?: (value: string, id: string) => boolean): Pairs {
  const order: number[] = [];
  for (let i = 0; i < list.values.length; i++) if (!keep || keep(list.values[i]!, list.ids[i]!)) order.push(i);
  const { values, ids } = list;
  order.sort((a, b) => cmp(values[a]!, ids[a]!, values[b]!, ids[b]!));
  return { values: order.map((i) => values[i]!), ids: order.map((i) => ids[i]!) };
}

export class PrefixIndex {
  private sorted: Pairs = noPairs();
  /** Pairs added since the last fold, in arrival order until a search sorts them. */
  private pending: Pairs = noPairs();
  private pendingSorted = true;
  /** Pairs still physically in `sorted` or `pending` that were removed. */
  private removed = new Set<string>();

  get size(): number {
    return this.sorted.values.length + this.pending.values.length - this.removed.size;
  }

  add(value: string, id: string): void {
    // A pair removed and put back (an update that kept it) only loses its mark.
    if (this.removed.size > 0 && this.removed.delete(pairKey(value, id))) return;
    this.pending.values.push(value);
    this.pending.ids.push(id);
    this.pendingSorted = false;
  }

  remove(value: string, id: string): void {
    this.removed.add(pairKey(value, id));
  }

  /** About how many pairs start with `prefix` (removed ones still counted): a cost estimate, O(log n). */
  estimate(prefix: string): number {
    this.fold();
    const range = (list: Pairs) => lowerBound(list, prefix + '\uffff', '') - lowerBound(list, prefix, '');
    return range(this.sorted) + range(this.pending);
  }

  /** Calls `visit(id)` for every pair whose value starts with `prefix`; `visit` returns false to stop. */
  forEachPrefixed(prefix: string, visit: (id: string) => boolean | void): void {
    this.fold();
    const checkRemoved = this.removed.size > 0;
    for (const list of [this.sorted, this.pending]) {
      for (let i = lowerBound(list, prefix, ''); i < list.values.length && list.values[i]!.startsWith(prefix); i++) {
        const value = list.values[i]!;
        const id = list.ids[i]!;
        if (checkRemoved && this.removed.has(pairKey(value, id))) continue;
        if (visit(id) === false) return;
      }
    }
  }

  /** Makes the index searchable: sorts a small buffer, or merges a large one (and the removals) into `sorted`. */
  private fold(): void {
    if (this.pending.values.length <= MERGE_AT && this.removed.size <= MERGE_AT) {
      if (!this.pendingSorted) this.pending = sortedCopy(this.pending);
      this.pendingSorted = true;
      return;
    }
    const keep = this.removed.size > 0 ? (v: string, id: string) => !this.removed.has(pairKey(v, id)) : undefined;
    const add = !this.pendingSorted || keep ? sortedCopy(this.pending, keep) : this.pending;
    const old = keep ? sortedCopy(this.sorted, keep) : this.sorted;
    const n = old.values.length + add.values.length;
    const out: Pairs = { values: new Array<string>(n), ids: new Array<string>(n) };
    let i = 0;
    let j = 0;
    let k = 0;
    const take = (from: Pairs, at: number): void => {
      out.values[k] = from.values[at]!;
      out.ids[k++] = from.ids[at]!;
    };
    while (i < old.values.length && j < add.values.length) {
      if (cmp(old.values[i]!, old.ids[i]!, add.values[j]!, add.ids[j]!) <= 0) take(old, i++);
      else take(add, j++);
    }
    while (i < old.values.length) take(old, i++);
    while (j < add.values.length) take(add, j++);
    this.sorted = out;
    this.pending = noPairs();
    this.pendingSorted = true;
    this.removed = new Set();
  }
}
