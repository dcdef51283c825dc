// The real-core bench's turn order (bench/lib/pair-order.js): the reference core slows as it ages under the turns,
// so each side must get as many late turns as early ones.
import { describe, expect, it } from 'vitest';
import { pairOrder } from '../../bench/lib/pair-order.js';

/** The sum of the positions (1 on) of `side`'s turns, each raised to `power`. */
const moment = (order: string[], side: string, power: number) => order.reduce((t, s, i) => t + (s === side ? (i + 1) ** power : 0), 0);

describe('pairOrder', () => {
  it('gives each side half of the turns, one of each pair', () => {
    for (const pairs of [1, 3, 4, 8]) {
      const order = pairOrder(pairs);
      expect(order).toHaveLength(2 * pairs);
      for (let k = 0; k < pairs; k++) expect(new Set(order.slice(2 * k, 2 * k + 2))).toEqual(new Set(['bare', 'tool']));
    }
  });

  it('with 4 pairs, a drift that grows steadily or with the square of the time falls on both sides alike', () => {
    const order = pairOrder(4);
    expect(order).toEqual(['bare', 'tool', 'tool', 'bare', 'tool', 'bare', 'bare', 'tool']);
    for (const power of [1, 2]) expect(moment(order, 'bare', power)).toBe(moment(order, 'tool', power));
  });
});
