// The store's scoped index map: composite keys split after a fixed number of parts, so a value holding the
// separator itself (a provider's user id could) is still found; counts and removals per scope.
import { describe, expect, it } from 'vitest';
import { ScopedMap } from '../../src/sandbox/store/scoped-map.js';
import { key } from '../../src/sandbox/store/records.js';

describe('ScopedMap', () => {
  it('finds by composite key what was stored by scope and value, and the reverse', () => {
    const m = new ScopedMap<string>(3);
    m.setIn(key('public', 'public', 'google'), 'odd\u0000id', 'u1');
    m.set(key('public', 't1', 'google', 'g2'), 'u2');
    expect(m.get(key('public', 'public', 'google', 'odd\u0000id'))).toBe('u1');
    expect(m.getIn(key('public', 't1', 'google'), 'g2')).toBe('u2');
    expect(m.has(key('public', 't1', 'github', 'g2'))).toBe(false);
    expect(m.size).toBe(2);
    m.set(key('public', 't1', 'google', 'g2'), 'u3');
    expect(m.size).toBe(2);
    expect(m.delete(key('public', 't1', 'google', 'g2'))).toBe(true);
    expect(m.delete(key('public', 't1', 'google', 'g2'))).toBe(false);
    expect(m.size).toBe(1);
  });

  it('with no scope parts is a plain map', () => {
    const m = new ScopedMap<number>(0);
    m.set('a\u0000b', 1);
    expect(m.get('a\u0000b')).toBe(1);
    expect(m.get('b')).toBeUndefined();
  });
});
