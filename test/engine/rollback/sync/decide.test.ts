// The rollback of a sync decides per user (sync/rollback-decide.ts), pure: it gives back exactly what the sync
// wrote: an email the user changed since stays (said so) while the sync's other changes are undone, a login the
// sync left on its hold address (a swap stopped midway) gets its email back, metadata keys the sync did not write
// are never touched, and a re-import an earlier attempt began is carried on.
import { describe, expect, it } from 'vitest';
import type { CoreUser } from '../../../../src/core-client/types.js';
import type { CanonicalUser } from '../../../../src/records/types.js';
import { runMadeOf, type RunMade } from '../../../../src/engine/rollback/made.js';
import { decideSyncUndo } from '../../../../src/engine/rollback/sync/decide.js';
import { holdEmail } from '../../../../src/engine/sync/plan-email.js';
import type { SyncMade, SyncState } from '../../../../src/engine/rollback/sync/state.js';
import type { JournalledStep } from '../../../../src/engine/journal/journal.js';

const coreUser = (email: string): CoreUser => ({
  id: 'ep-1',
  isPrimaryUser: false,
  tenantIds: ['public'],
  timeJoined: 0,
  emails: [email],
  phoneNumbers: [],
  thirdParty: [],
  loginMethods: [{ tenantIds: ['public'], recipeUserId: 'ep-1', verified: false, timeJoined: 0, recipeId: 'emailpassword', email }],
});
const rec = (email: string, metadata: Record<string, unknown>): CanonicalUser => ({ id: 'u1', email, password: { hash: 'x' }, metadata });
const made = (steps: Array<[string, JournalledStep]>, sync: Partial<SyncMade> = {}): RunMade & { sync: SyncMade } => ({
  ...runMadeOf('u1', new Map()),
  ref: 'ep-1',
  sync: {
    steps: new Map(steps),
    old: rec('a@x.com', { tier: 'basic', plan: 'free' }),
    now: rec('new@x.com', { tier: 'gold', plan: 'free' }),
    plan: {},
    ...sync,
  },
});
const state = (email: string, metadata: Record<string, unknown>): SyncState => ({ user: coreUser(email), metadata, roles: new Map() });
const created = (ids: Record<string, string> = {}): JournalledStep => ({ result: 'created', ids });
const EMAIL: [string, JournalledStep] = ['sync:email:password', created({ login: 'ep-1' })];
const META: [string, JournalledStep] = ['sync:metadata', created()];

describe('decideSyncUndo', () => {
  it('puts back the email and the metadata key the sync wrote, not the key the app changed', () => {
    const d = decideSyncUndo(made([EMAIL, META]), state('new@x.com', { tier: 'gold', plan: 'pro' }));
    expect(d.kind).toBe('undo');
    const undos = d.kind === 'undo' ? d.actions.map((a) => (a.kind === 'sync' ? a.undo : a)) : [];
    expect(undos).toContainEqual({ kind: 'restore-email', recipeUserId: 'ep-1', email: 'a@x.com' });
    expect(undos).toContainEqual({ kind: 'restore-metadata', userId: 'ep-1', update: { tier: 'basic' } });
  });

  it('leaves an email the user changed since, says so, and still undoes the rest', () => {
    const d = decideSyncUndo(made([EMAIL, META]), state('own@x.com', { tier: 'gold' }));
    expect(d.kind).toBe('undo');
    expect(d.notes?.join(' ')).toMatch(/email was changed in the core since the sync: left/);
    const kinds = d.kind === 'undo' ? d.actions.map((a) => (a.kind === 'sync' ? a.undo.kind : a.kind)) : [];
    expect(kinds).toEqual(['restore-metadata']);
  });

  it('a login left on its hold address by a swap stopped midway gets its email back', () => {
    const hold: [string, JournalledStep] = ['sync:email-hold:password', created({ login: 'ep-1' })];
    const d = decideSyncUndo(made([hold]), state(holdEmail('ep-1'), {}));
    const undos = d.kind === 'undo' ? d.actions.map((a) => (a.kind === 'sync' ? a.undo : a)) : [];
    expect(undos).toEqual([{ kind: 'restore-email', recipeUserId: 'ep-1', email: 'a@x.com' }]);
  });

  it('carries on a re-import an earlier attempt began, though the user is found', () => {
    const removed: [string, JournalledStep] = ['sync:remove-user', created()];
    const restore = { journal: '/j', user: 'u1', syncRun: 'r@t', begun: true, whole: false };
    const begun = decideSyncUndo(made([removed], { restore }), state('a@x.com', {}));
    expect(begun.kind).toBe('undo');
    const whole = decideSyncUndo(made([removed], { restore: { ...restore, whole: true } }), state('a@x.com', {}));
    expect(whole.kind).toBe('nothing');
  });

  it('a phone the sync moved and the user changed since stays; one still as the sync left it goes back', () => {
    const phone: [string, JournalledStep] = ['sync:phone:phone', created({ login: 'pl-1' })];
    const withPhone = (n: string): SyncState => {
      const s = state('a@x.com', {});
      s.user!.loginMethods.push({
        tenantIds: ['public'],
        recipeUserId: 'pl-1',
        verified: true,
        timeJoined: 0,
        recipeId: 'passwordless',
        phoneNumber: n,
      });
      return s;
    };
    const sync = {
      old: { ...rec('a@x.com', {}), phoneNumber: '+14155550100' },
      now: { ...rec('a@x.com', {}), phoneNumber: '+14155550101' },
    };
    const since = decideSyncUndo(made([phone], sync), withPhone('+14155550199'));
    expect(since.kind).toBe('nothing');
    expect(since.notes?.join(' ')).toMatch(/phone:phone was changed in the core since the sync: left/);
    const back = decideSyncUndo(made([phone], sync), withPhone('+14155550101'));
    const undos = back.kind === 'undo' ? back.actions.map((a) => (a.kind === 'sync' ? a.undo : a)) : [];
    expect(undos).toEqual([{ kind: 'restore-contact', recipeUserId: 'pl-1', phoneNumber: '+14155550100' }]);
  });
});
