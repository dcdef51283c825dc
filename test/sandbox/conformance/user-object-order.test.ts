// Conformance: the order of `emails`, `phoneNumbers`, `thirdParty` and `tenantIds` in a user object. The reference
// core fills them from java.util.HashSets (supertokens-plugin-interface AuthRecipeUserInfo.toJson, lines 144-185;
// LoginMethod.java:62), so they follow the strings' hashes, not the login methods' order. The expected order below
// is what a running reference core 11.4.4 answered for exactly these five linked login methods.
import { describe, expect, it } from 'vitest';
import { hashSetOrder, javaStringHash, stringSetOrder } from '../../../src/sandbox/java-order.js';
import { LICENSE, sandboxForFile } from '../../support/sandbox.js';

const { api } = sandboxForFile({ licenseKey: LICENSE }, { 'cdi-version': '5.2' });

describe('HashSet order in user objects', () => {
  it('five linked login methods answer their emails and third parties in the reference order', async () => {
    const emails = ['zoe.hash@example.com', 'ada.hash@example.com', 'Mo.Hash@example.org', 'bo.hash@example.net', 'kim.hash@example.com'];
    const ids: string[] = [];
    for (const email of emails.slice(0, 3)) ids.push((await api.post('/recipe/signup', { email, password: 'pass1234' })).json.user.id);
    for (const [i, email] of emails.slice(3).entries()) {
      const tp = { thirdPartyId: i ? 'github' : 'google', thirdPartyUserId: `tp-hash-${i}`, email: { id: email, isVerified: false } };
      ids.push((await api.post('/recipe/signinup', tp)).json.user.id);
    }
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: ids[0] });
    let user: { emails: string[]; thirdParty: unknown[]; loginMethods: Array<{ email: string }> } | undefined;
    for (const r of ids.slice(1))
      user = (await api.post('/recipe/accountlinking/user/link', { recipeUserId: r, primaryUserId: ids[0] })).json.user;
    expect(user!.emails).toEqual([
      'ada.hash@example.com',
      'mo.hash@example.org',
      'bo.hash@example.net',
      'zoe.hash@example.com',
      'kim.hash@example.com',
    ]);
    expect(user!.thirdParty).toEqual([
      { id: 'github', userId: 'tp-hash-1' },
      { id: 'google', userId: 'tp-hash-0' },
    ]);
    // The login methods themselves stay in timeJoined order.
    expect(user!.loginMethods.map((m) => m.email)).toEqual(emails.map((e) => e.toLowerCase()));
  });

  it('java-order: String.hashCode, buckets after resizing, insertion order within a bucket', () => {
    expect([javaStringHash(''), javaStringHash('a'), javaStringHash('hello'), javaStringHash('public')]).toEqual([
      0, 97, 99162322, -977423767,
    ]);
    expect(stringSetOrder(['b', 'a', 'b'])).toEqual(['a', 'b']);
    // "Aa" and "BB" share a hash (2112): one bucket, kept in insertion order.
    expect(stringSetOrder(['BB', 'Aa'])).toEqual(['BB', 'Aa']);
    expect(stringSetOrder(['Aa', 'BB'])).toEqual(['Aa', 'BB']);
    // 13 values: the table has grown to 32 buckets ("q" is 113: bucket 1 of 16 but 17 of 32).
    const letters = 'abcdefghijklq'.split('');
    expect(stringSetOrder(letters)[12]).toBe('q');
    expect(stringSetOrder(letters.slice(0, 12).concat('q').slice(-12))[0]).toBe('q');
    expect(hashSetOrder([{ k: 'b' }, { k: 'a' }], (x) => x.k)).toEqual([{ k: 'a' }, { k: 'b' }]);
  });
});
