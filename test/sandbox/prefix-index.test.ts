// PrefixIndex (the sorted index behind the /users search) against a plain list, across its buffer and
// compaction thresholds, with adds, removals and put-backs interleaved with queries.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/shared/rng.js';
import { PrefixIndex } from '../../src/sandbox/store/prefix-index.js';
import { emailDomains } from '../../src/sandbox/store/search-index.js';
import { StoreState, type LoginMethod } from '../../src/sandbox/store/index.js';

const ids = (idx: PrefixIndex, prefix: string): string[] => {
  const out: string[] = [];
  idx.forEachPrefixed(prefix, (id) => void out.push(id));
  return out.sort();
};

describe('PrefixIndex', () => {
  it('answers like a scan of a plain list through thousands of adds, removals and put-backs', () => {
    const rand = createRng(7).next;
    const idx = new PrefixIndex();
    const truth = new Map<string, string>(); // id -> value
    const letters = 'abcg';
    const word = () => Array.from({ length: 1 + Math.floor(rand() * 4) }, () => letters[Math.floor(rand() * letters.length)]).join('');
    const check = () => {
      expect(idx.size).toBe(truth.size);
      for (const prefix of ['a', 'g', 'ab', 'gc', 'cab', 'bbbb', 'z']) {
        const expected = [...truth]
          .filter(([, v]) => v.startsWith(prefix))
          .map(([id]) => id)
          .sort();
        expect(ids(idx, prefix)).toEqual(expected);
      }
    };
    for (let step = 0; step < 12_000; step++) {
      const r = rand();
      const id = `u${Math.floor(rand() * 3000)}`;
      const old = truth.get(id);
      if (old === undefined) {
        const v = word();
        idx.add(v, id);
        truth.set(id, v);
      } else if (r < 0.4) {
        idx.remove(old, id);
        truth.delete(id);
      } else if (r < 0.7) {
        // An update that keeps the value: removed and put back, as StoreState.apply does.
        idx.remove(old, id);
        idx.add(old, id);
      } else {
        const v = word();
        idx.remove(old, id);
        idx.add(v, id);
        truth.set(id, v);
      }
      if (step % 997 === 0) check();
    }
    check();
  });

  it('stops when the visitor returns false, and estimates a prefix range from the sorted part', () => {
    const idx = new PrefixIndex();
    for (let i = 0; i < 5000; i++) idx.add(`v${String(i).padStart(4, '0')}`, `id${i}`);
    let seen = 0;
    idx.forEachPrefixed('v', () => ++seen < 10);
    expect(seen).toBe(10);
    expect(idx.estimate('v00')).toBeGreaterThan(0);
    expect(idx.estimate('w')).toBe(0);
  });
});

describe('emailDomains', () => {
  it('gives the text after each @', () => {
    expect(emailDomains('a@gmail.com')).toEqual(['gmail.com']);
    expect(emailDomains('"a@b"@c.io')).toEqual(['b"@c.io', 'c.io']);
    expect(emailDomains('nobody')).toEqual([]);
  });
});

describe('SearchIndex, built by the first search', () => {
  const lm = (id: string, email: string): LoginMethod => ({
    app: 'public',
    id,
    recipeId: 'emailpassword',
    tenantIds: ['public'],
    timeJoined: 1,
    email,
  });
  const found = (state: StoreState, prefix: string): string[] => {
    const out: string[] = [];
    state.search.get('public', 'public', 'emailpassword', 'e')?.forEachPrefixed(prefix, (id) => void out.push(id));
    return out.sort();
  };

  it('holds what the users hold at the first search, whatever was written before it, and follows every write after', () => {
    const state = new StoreState();
    for (const [id, email] of [
      ['a', 'ann@x.io'],
      ['b', 'bob@x.io'],
      ['c', 'anna@y.io'],
    ])
      state.apply({ c: 'users', k: id!, v: lm(id!, email!) });
    state.apply({ c: 'users', k: 'b', v: lm('b', 'annie@x.io') });
    state.apply({ c: 'users', k: 'c' });
    expect(found(state, 'ann')).toEqual(['a', 'b']);
    state.apply({ c: 'users', k: 'a', v: lm('a', 'zed@x.io') });
    state.apply({ c: 'users', k: 'd', v: lm('d', 'anne@x.io') });
    expect(found(state, 'ann')).toEqual(['b', 'd']);
    expect(found(state, 'zed')).toEqual(['a']);
    expect(state.search.get('public', 'public', 'emailpassword', 'd')?.size).toBe(3);
  });
});
