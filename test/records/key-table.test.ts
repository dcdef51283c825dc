import { describe, expect, it } from 'vitest';
import { KeyTable } from '../../src/records/key-table.js';

describe('KeyTable', () => {
  it('keeps every key of a large set through growth, and knows no others', () => {
    const table = new KeyTable(4);
    const n = 200_000;
    for (let i = 0; i < n; i++) table.set(`user${i}@example.com`, i);
    expect(table.size).toBe(n);
    for (let i = 0; i < n; i += 997) expect(table.get(`user${i}@example.com`)).toBe(i);
    let found = 0;
    for (let i = n; i < 2 * n; i++) if (table.get(`user${i}@example.com`) !== undefined) found++;
    expect(found).toBe(0);
  });

  it('overwrites a value and tells near keys apart', () => {
    const table = new KeyTable();
    table.set('ab', 1);
    table.set('ba', 2);
    table.set('ab', 3);
    expect([table.get('ab'), table.get('ba'), table.get('a'), table.get(''), table.size]).toEqual([3, 2, undefined, undefined, 2]);
    table.set('', 0);
    expect(table.get('')).toBe(0);
  });
});
