import { describe, expect, it } from 'vitest';
import { PackedStrings } from '../../src/records/packed-strings.js';

describe('PackedStrings', () => {
  it('gives back every string through growth, ASCII or not, empty included', () => {
    const list = new PackedStrings();
    const values: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const v = i % 1000 === 7 ? `ü-${i}-用户-😀` : i % 5000 === 3 ? '' : `firebase-local-id-${i}`;
      values.push(v);
      list.push(v);
    }
    expect(list.length).toBe(values.length);
    for (let i = 0; i < values.length; i += 7) expect(list.get(i)).toBe(values[i]);
    expect([list.get(7), list.get(3), list.get(99_999)]).toEqual([values[7], '', values[99_999]]);
  });

  it('answers an empty string outside the list', () => {
    const list = new PackedStrings();
    list.push('a');
    expect([list.get(-1), list.get(1), list.get(0)]).toEqual(['', '', 'a']);
  });
});
