// The staged table's row ids (16 bytes a user): what goes in comes out in lower case, an id that is not a UUID is
// no id, and telling whether an id is known does not depend on building it (readback.ts asks for every user).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { STAGED, StagedTable } from '../../../../src/engine/strategies/staged/table.js';

describe('StagedTable row ids', () => {
  it('gives back each UUID it was given, in lower case, per user', () => {
    const table = new StagedTable(4);
    const ids: string[] = Array.from({ length: 300 }, () => randomUUID());
    ids[7] = ids[7]!.toUpperCase();
    ids[8] = '00000000-0000-0000-0000-000000000001';
    ids[9] = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    for (const [k, id] of ids.entries()) table.setRowId(table.add(`key-${k}`, k, STAGED), id);
    for (const [k, id] of ids.entries()) {
      expect(table.hasRowId(k)).toBe(true);
      expect(table.rowId(k)).toBe(id.toLowerCase());
    }
  });

  it('has no id for a user not told one, told something else, or told the zero UUID', () => {
    const table = new StagedTable();
    const told = [
      'not-a-uuid',
      '0123456789abcdef0123456789abcdef',
      '00000000-0000-0000-0000-000000000000',
      'g0000000-0000-0000-0000-000000000000',
    ];
    const none = table.add('never told', 1, STAGED);
    expect(table.hasRowId(none)).toBe(false);
    expect(table.rowId(none)).toBeUndefined();
    for (const [k, id] of told.entries()) {
      const i = table.add(`told-${k}`, k, STAGED);
      table.setRowId(i, randomUUID());
      table.setRowId(i, id); // replaces the one before
      expect(table.hasRowId(i)).toBe(false);
      expect(table.rowId(i)).toBeUndefined();
    }
  });

  it('keeps each user its own id when a neighbour is changed', () => {
    const table = new StagedTable();
    const a = table.add('a', 1, STAGED);
    const b = table.add('b', 2, STAGED);
    const idA = randomUUID();
    table.setRowId(a, idA);
    table.setRowId(b, randomUUID());
    table.setRowId(b, undefined);
    expect(table.rowId(a)).toBe(idA);
    expect(table.rowId(b)).toBeUndefined();
  });
});
