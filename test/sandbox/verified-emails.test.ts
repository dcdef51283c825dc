// VerifiedEmails (the store's verified-email collection held without composite key strings) against a plain Map
// through thousands of random puts, overwrites and deletes: same answers, same size, same entries.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/shared/rng.js';
import { key, type Verification } from '../../src/sandbox/store/records.js';
import { VerifiedEmails } from '../../src/sandbox/store/verified-emails.js';

describe('VerifiedEmails', () => {
  it('answers like a Map keyed by key(app, user id, email), several emails per user and odd keys included', () => {
    const rand = createRng(11).next;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const v = new VerifiedEmails();
    const truth = new Map<string, Verification>();
    const keys: string[] = [];
    for (let step = 0; step < 20_000; step++) {
      const rec: Verification = {
        app: pick(['public', 'a2']),
        userId: `u${Math.floor(rand() * 300)}`,
        email: pick(['a@x.io', 'b@x.io', 'c@y.io']),
      };
      const r = rand();
      // A key that is not the record's own (hand-edited files), or not three parts at all.
      const k = r < 0.05 ? key(rec.app, rec.userId, 'other@x.io') : r < 0.07 ? `odd-${rec.userId}` : key(rec.app, rec.userId, rec.email);
      if (rand() < 0.35 && keys.length > 0) {
        const d = pick(keys);
        expect(v.delete(d)).toBe(truth.delete(d));
      } else {
        v.set(k, rec);
        truth.set(k, rec);
        keys.push(k);
      }
      expect(v.size).toBe(truth.size);
      const probe = rand() < 0.5 ? pick(keys) : key('public', `u${Math.floor(rand() * 300)}`, pick(['a@x.io', 'b@x.io']));
      expect(v.get(probe)).toBe(truth.get(probe));
      expect(v.has(probe)).toBe(truth.has(probe));
    }
    expect(new Map([...v])).toEqual(truth);
    expect([...v.keys()].sort()).toEqual([...truth.keys()].sort());
    expect(v.size).toBeGreaterThan(100);
    // A capture is the collection at that instant, whatever is written after it.
    const captured = v.captured();
    const before = new Map(truth);
    v.set(key('public', 'u-new', 'n@x.io'), { app: 'public', userId: 'u-new', email: 'n@x.io' });
    v.delete(keys[keys.length - 1]!);
    expect(new Map([...captured])).toEqual(before);
    v.clear();
    expect([...v.values()]).toEqual([]);
  });
});
