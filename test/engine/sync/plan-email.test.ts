// The sync's plan for the email-password login (plan-email.ts), pure: a password-only change imports the hash under
// the email the core holds (never moving it back to the export's), an email change moves it only while the core
// still shows the earlier export's (or the sync's own hold address), and verified flags follow only a change.
import { describe, expect, it } from 'vitest';
import type { LoginMethod } from '../../../src/core-client/types.js';
import type { CanonicalUser } from '../../../src/records/types.js';
import { holdEmail, planEmailAndPassword } from '../../../src/engine/sync/plan-email.js';
import type { Part } from '../../../src/engine/sync/fingerprint.js';

const HASH = '$2a$04$abcdefghijklmnopqrstuuJ5vS2Qx6rW3QkM6s5yq8x0Vv7lQ1m7e';
const login = (email: string, verified = true): LoginMethod => ({
  tenantIds: ['public'],
  recipeUserId: 'ep-1',
  verified,
  timeJoined: 0,
  recipeId: 'emailpassword',
  email,
});
const rec = (email: string, extra: Partial<CanonicalUser> = {}): CanonicalUser => ({
  id: 'u1',
  email,
  emailVerified: true,
  password: { hash: HASH },
  ...extra,
});
const plan = (record: CanonicalUser, old: CanonicalUser | undefined, parts: Part[], lm: LoginMethod) =>
  planEmailAndPassword(record, old, new Set(parts), new Map([['password', lm]]), {});

describe('planEmailAndPassword', () => {
  it('a password-only change imports under the email the core holds, and moves no email', () => {
    const out = plan(rec('a@x.com'), rec('a@x.com'), ['password'], login('own@x.com'));
    expect(out.steps.map((s) => s.kind)).toEqual(['replace-password-hash']);
    expect(out.steps[0]).toMatchObject({ email: 'own@x.com', recipeUserId: 'ep-1' });
  });

  it('an email the export changed is moved while the core shows the earlier one; the user’s own is left, said so', () => {
    const moved = plan(rec('new@x.com'), rec('a@x.com'), ['email'], login('a@x.com'));
    expect(moved.steps.map((s) => s.kind)).toEqual(['change-email', 'verify-email']);
    const own = plan(rec('new@x.com'), rec('a@x.com'), ['email', 'password'], login('own@x.com'));
    expect(own.steps.map((s) => s.kind)).toEqual(['replace-password-hash']);
    expect(own.steps[0]).toMatchObject({ email: 'own@x.com' });
    expect(own.notes.join(' ')).toMatch(/changed in the core since the earlier run: left/);
  });

  it('a login parked on its hold address (a swap) is moved on; the hash follows the move', () => {
    const out = plan(rec('b@x.com'), rec('a@x.com'), ['email', 'password'], login(holdEmail('ep-1')));
    expect(out.steps.map((s) => s.kind)).toEqual(['change-email', 'replace-password-hash', 'verify-email']);
    expect(out.steps[1]).toMatchObject({ email: 'b@x.com' });
  });

  it('the verified flag is touched only when it changed or the email moved', () => {
    expect(plan(rec('a@x.com', { emailVerified: false }), rec('a@x.com'), ['password'], login('a@x.com')).steps.map((s) => s.kind)).toEqual(
      ['replace-password-hash'],
    );
    expect(plan(rec('a@x.com', { emailVerified: false }), rec('a@x.com'), ['verified'], login('a@x.com')).steps.map((s) => s.kind)).toEqual(
      ['unverify-email'],
    );
  });
});
