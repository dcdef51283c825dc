// `--skip N`, `--limit N` and `--only ID...`: try a first slice of a file before the rest. The slice is taken over
// the records in file order (valid or not), so `--skip 100 --limit 100` is always the same second hundred, and a
// later run without the options (with the same or a new journal) carries on with everything.
// Invariant: a slice is taken by position in file order, valid or not, so the same options always pick the same
// records.

export interface SliceOptions {
  skip?: number;
  limit?: number;
  /** Source ids to keep (every other record is left out). */
  only?: string[];
}

export const isSliced = (s: SliceOptions): boolean => s.skip !== undefined || s.limit !== undefined || s.only !== undefined;

/** How many of `records` the slice keeps (an upper bound with --only: ids that are not in the files keep nothing). */
export function sliceTotal(records: number, s: SliceOptions): number {
  let n = Math.max(0, records - (s.skip ?? 0));
  if (s.limit !== undefined) n = Math.min(n, s.limit);
  if (s.only) n = Math.min(n, new Set(s.only).size);
  return n;
}

export async function* sliceRecords<T extends { record: { id: string } }>(items: AsyncIterable<T>, s: SliceOptions): AsyncIterable<T> {
  const only = s.only ? new Set(s.only) : undefined;
  let index = 0;
  let kept = 0;
  for await (const item of items) {
    const i = index++;
    if (i < (s.skip ?? 0)) continue;
    if (s.limit !== undefined && kept >= s.limit) return;
    if (only && !only.has(item.record.id)) continue;
    kept += 1;
    yield item;
  }
}
