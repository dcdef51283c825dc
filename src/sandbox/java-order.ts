// The iteration order of a java.util.HashSet, which the reference core's user objects show: AuthRecipeUserInfo.toJson
// fills `emails`, `phoneNumbers` and `thirdParty` from HashSets, and user and login method `tenantIds` are HashSets
// too (supertokens-plugin-interface AuthRecipeUserInfo.java:144-185, LoginMethod.java:62), so their order follows
// the values' hashes, not the login methods' order.

/** java.lang.String.hashCode over UTF-16 code units (int arithmetic). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The order a `new HashSet<>()` filled by add() in the given order iterates in: default capacity 16 doubled while
 * the size is over 3/4 of it, bucket `(h ^ h >>> 16) & (capacity - 1)`, and within a bucket the order of insertion
 * (HashMap.resize keeps it). Duplicates (same key) keep their first place.
 */
export function hashSetOrder<T>(items: Iterable<T>, keyOf: (t: T) => string): T[] {
  const unique = new Map<string, T>();
  for (const t of items) {
    const k = keyOf(t);
    if (!unique.has(k)) unique.set(k, t);
  }
  let capacity = 16;
  while (unique.size > capacity * 0.75) capacity *= 2;
  const entries = [...unique].map(([k, t], i) => {
    const h = javaStringHash(k);
    return { t, bucket: (h ^ (h >>> 16)) & (capacity - 1), i };
  });
  entries.sort((a, b) => a.bucket - b.bucket || a.i - b.i);
  return entries.map((e) => e.t);
}

export const stringSetOrder = (values: Iterable<string>): string[] => hashSetOrder(values, (s) => s);
