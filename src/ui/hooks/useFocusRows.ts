// A screen's focused row, kept in a ref that moves the moment an arrow is read: fields and key handlers ask
// `rowNow()` at each key, so keys typed right after an arrow follow it even before React draws the move. A move
// claims the key that made it (keys/keyboard.tsx): the enter that moved into a field does not also submit it.
import { useRef } from 'react';
import { useKeyClaim } from '../keys/keyboard.js';
import { useSyncState } from './useSyncState.js';

export interface FocusRows<R> {
  /** The focused row as drawn. */
  row: R;
  /** The focused row now (read at a key, never stale). */
  rowNow(): R;
  /** Move by `delta` rows (clamped), or to a row by index. */
  move(delta: number): void;
  moveTo(index: number | ((f: number) => number)): void;
}

export function useFocusRows<R>(rows: R[], initial = 0): FocusRows<R> {
  const [focus, setFocus, getFocus] = useSyncState(initial);
  const { claim } = useKeyClaim();
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const clamp = (f: number) => Math.max(0, Math.min(rowsRef.current.length - 1, f));
  const go = (next: number) => {
    if (next === getFocus()) return;
    claim();
    setFocus(next);
  };
  return {
    row: rows[clamp(focus)]!,
    rowNow: () => rowsRef.current[clamp(getFocus())]!,
    move: (delta) => go(clamp(getFocus() + delta)),
    moveTo: (index) => go(clamp(typeof index === 'function' ? index(getFocus()) : index)),
  };
}
