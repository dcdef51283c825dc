// useState whose latest value can be read at once: several key presses can arrive in one chunk, and a
// handler must see the cursor the previous press just moved, not the one of the last render.
import { useCallback, useRef, useState } from 'react';

export function useSyncState<T>(initial: T): [T, (next: T | ((prev: T) => T)) => void, () => T] {
  const ref = useRef(initial);
  const [value, setValue] = useState(initial);
  const set = useCallback((next: T | ((prev: T) => T)) => {
    ref.current = typeof next === 'function' ? (next as (prev: T) => T)(ref.current) : next;
    setValue(ref.current);
  }, []);
  const get = useCallback(() => ref.current, []);
  return [value, set, get];
}
