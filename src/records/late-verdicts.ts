// The first validation pass's cross-record verdicts, as a second pass needs them: which records a later record made
// invalid (by their origin, for a pass over files that changed) and the problems to attach to each, rendered from the
// ClashLog when asked. Nothing here holds a Problem per duplicate, nor the duplicate tables: a file of a million
// duplicates keeps 12 bytes per problem and its records' places.
import type { ClashLog } from './clash-log.js';
import { hashKey, KeyTable } from './key-table.js';
import type { Problem, RecordOrigin } from './types.js';

export function originKey(origin: RecordOrigin): string {
  return `${origin.file}\u0000${origin.line ?? ''}\u0000${origin.index ?? ''}`;
}

export interface LateVerdicts {
  /** How many records have late problems (each one makes its record invalid). */
  readonly size: number;
  /** Whether the record at this origin (originKey) got a late problem. */
  has(key: string): boolean;
  /** Its late problems (none when it has none). */
  problemsOf(key: string): Problem[];
  /** The originKey of every such record (for tests and small sets: it renders every key). */
  keys(): string[];
}

/** Over the log of a pass: the by-origin table is built the first time a key is asked (only a pass over changed files does). */
export function lateVerdicts(clashes: ClashLog | undefined): LateVerdicts {
  const places = clashes?.names;
  let byKey: KeyTable | undefined;
  const ordinals = (): number[] => (clashes ? [...clashes.lateOrdinals()] : []);
  const size = clashes ? ordinals().length : 0;
  const find = (key: string): number | undefined => {
    if (!clashes || !places || size === 0) return undefined;
    if (!byKey) {
      byKey = new KeyTable(size);
      for (const o of clashes.lateOrdinals()) byKey.set(originKey(places.originOf(o)), o);
    }
    hashKey(key);
    const o = byKey.getHashed();
    // The table keeps 64-bit hashes: the origin itself tells a collision apart.
    return o !== undefined && originKey(places.originOf(o)) === key ? o : undefined;
  };
  return {
    size,
    has: (key) => find(key) !== undefined,
    problemsOf: (key) => {
      const o = find(key);
      return o === undefined ? [] : clashes!.lateOf(o);
    },
    keys: () => (places ? ordinals().map((o) => originKey(places.originOf(o))) : []),
  };
}
