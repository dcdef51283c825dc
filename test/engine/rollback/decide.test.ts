// The rollback's decision per user (rollback-decide.ts), table-driven: what the run made (from a journal's steps)
// against what the core holds now. The same function decides the dry run, the confirmation and the rollback.
import { describe, expect, it } from 'vitest';
import type { CoreUser, LoginMethod } from '../../../src/core-client/types.js';
import { decideUser, type UserState } from '../../../src/engine/rollback/decide.js';
import { runMadeOf } from '../../../src/engine/rollback/made.js';
import { bulkShapeIds, stepShapeIds } from '../../../src/engine/rollback/shape.js';

type Steps = Parameters<typeof runMadeOf>[1];
const steps = (...s: Array<[string, 'created' | 'already', Record<string, string>]>): Steps =>
  new Map(s.map(([k, result, ids]) => [k, { result, ids }]));
const sig = (email: string) =>
  stepShapeIds({ kind: 'import-password', key: 'password', email, passwordHash: 'x', hashingAlgorithm: 'bcrypt' }).sig!;

function lm(recipeUserId: string, over: Partial<LoginMethod> = {}): LoginMethod {
  return {
    recipeUserId,
    recipeId: 'emailpassword',
    tenantIds: ['public'],
    verified: false,
    timeJoined: 1,
    email: `${recipeUserId}@x.test`,
    ...over,
  };
}
function user(id: string, methods: LoginMethod[], isPrimaryUser = methods.length > 1): CoreUser {
  return { id, isPrimaryUser, tenantIds: ['public'], timeJoined: 1, emails: [], phoneNumbers: [], thirdParty: [], loginMethods: methods };
}
const google = (id: string) => lm(id, { recipeId: 'thirdparty', email: 'g@x.test', thirdParty: { id: 'google', userId: 'g1' } });
const github = (id: string) => lm(id, { recipeId: 'thirdparty', email: 'h@x.test', thirdParty: { id: 'github', userId: 'h1' } });

/** A user the run created: password p1 (primary) and a Google login g1 linked to it, a device "phone". */
const createdSteps = () =>
  steps(
    ['password', 'created', { recipeUserId: 'p1', sig: sig('p1@x.test') }],
    ['thirdparty:google:g1', 'created', { recipeUserId: 'g1' }],
    ['primary', 'created', { primaryUserId: 'p1' }],
    ['link:thirdparty:google:g1', 'created', { primaryUserId: 'p1' }],
    ['totp:phone', 'created', { deviceName: 'phone' }],
  );
const asLeft = (): UserState => ({ stId: 'p1', user: user('p1', [lm('p1'), google('g1')]), devices: ['phone'] });

describe('decideUser', () => {
  it('removes a user as the run left it, login method by login method, the primary last', () => {
    const d = decideUser(runMadeOf('u', createdSteps()), asLeft());
    expect(d).toMatchObject({ kind: 'remove' });
    expect(d.kind === 'remove' && d.actions.map((a) => [a.kind, 'recipeUserId' in a ? a.recipeUserId : ''])).toEqual([
      ['remove-method', 'g1'],
      ['remove-method', 'p1'],
    ]);
  });

  it('counts a device journalled "already" on a user the run created as the run’s (an import answered 500 and retried)', () => {
    const made = runMadeOf(
      'u',
      steps(
        ...[...createdSteps()].map(([k, v]): [string, 'created' | 'already', Record<string, string>] => [
          k,
          k.startsWith('totp:') ? 'already' : v.result,
          v.ids,
        ]),
      ),
    );
    expect(decideUser(made, asLeft()).kind).toBe('remove');
  });

  it.each([
    ['a login method linked since', { user: user('p1', [lm('p1'), google('g1'), github('h1')]) }, /a github login was added since/],
    ['a TOTP device added since', { devices: ['phone', 'laptop'] }, /TOTP device "laptop" was added since/],
    [
      'its email changed',
      { user: user('p1', [lm('p1', { email: 'new@x.test' }), google('g1')]) },
      /the email \(or phone\) of an emailpassword login/,
    ],
    ['an external id mapped since', { mapping: { superTokensUserId: 'p1', externalUserId: 'app-1' } }, /mapped to an external id since/],
  ])('keeps a user the run created when %s, and says why', (_, change, why) => {
    const d = decideUser(runMadeOf('u', createdSteps()), { ...asLeft(), ...change });
    expect(d.kind).toBe('kept');
    expect(d.kind === 'kept' && d.reasons.join('; ')).toMatch(why);
  });

  it('with --force, removes only the run’s own login methods and devices from a user others added to', () => {
    const state = { ...asLeft(), user: user('p1', [lm('p1'), google('g1'), github('h1')]), devices: ['phone', 'laptop'] };
    const d = decideUser(runMadeOf('u', createdSteps()), state, { force: true });
    expect(
      d.kind === 'remove' &&
        d.actions.map((a) => a.kind + ':' + ('recipeUserId' in a ? a.recipeUserId : 'deviceName' in a ? a.deviceName : '')),
    ).toEqual(['remove-device:phone', 'remove-method:g1', 'remove-method:p1']);
    expect(d.notes.join()).toContain('kept a github login added since');
  });

  it('never removes a user the run’s login was linked into since, even with --force', () => {
    const state: UserState = { stId: 'p1', user: user('other', [lm('other'), lm('p1'), google('g1')]), devices: [] };
    expect(decideUser(runMadeOf('u', createdSteps()), state, { force: true }).kind).toBe('kept');
  });

  it('on a user that was there before, takes off only what the run added, and keeps it primary when others linked since', () => {
    const made = runMadeOf(
      'pre',
      steps(
        ['password', 'already', { recipeUserId: 'e1' }],
        ['thirdparty:google:g1', 'created', { recipeUserId: 'g1' }],
        ['map', 'created', { externalUserId: 'ext-1' }],
        ['verify-email:password', 'created', {}],
        ['primary', 'created', { primaryUserId: 'e1' }],
        ['link:thirdparty:google:g1', 'created', { primaryUserId: 'e1' }],
        ['totp:phone', 'created', { deviceName: 'phone' }],
      ),
    );
    const mapping = { superTokensUserId: 'e1', externalUserId: 'ext-1' };
    const asRunLeft: UserState = { stId: 'e1', mapping, user: user('ext-1', [lm('ext-1'), google('g1')]), devices: ['phone'] };
    const d = decideUser(made, asRunLeft);
    expect(d.kind === 'undo' && d.actions.map((a) => a.kind)).toEqual(['remove-method', 'demote', 'remove-device', 'remove-mapping']);
    expect(d.notes).toEqual(['verify-email:password: the email stays verified']);
    const linkedSince = decideUser(made, { ...asRunLeft, user: user('ext-1', [lm('ext-1'), google('g1'), github('h1')]) });
    expect(linkedSince.kind === 'undo' && linkedSince.actions.map((a) => a.kind)).toEqual([
      'remove-method',
      'remove-device',
      'remove-mapping',
    ]);
    expect(linkedSince.notes).toContain('stays primary: login methods were linked to it since the run');
  });

  it('on the bulk paths, finds the run’s login methods by fingerprint; without them (an older journal) keeps the user unless --force', () => {
    const body = {
      externalUserId: 'ext-9',
      loginMethods: [
        { recipeId: 'emailpassword' as const, email: 'p9@x.test' },
        { recipeId: 'thirdparty' as const, email: 'g@x.test', thirdPartyId: 'google', thirdPartyUserId: 'g1' },
      ],
      totpDevices: [{ secretKey: 's', period: 30, skew: 1, deviceName: 'phone' }],
    };
    const made = runMadeOf('b', steps(['bulk', 'created', { recipeUserId: 'ext-9', ...bulkShapeIds(body) }]));
    const mapping = { superTokensUserId: 'st-9', externalUserId: 'ext-9' };
    const state: UserState = {
      stId: 'st-9',
      mapping,
      user: user('ext-9', [lm('ext-9', { email: 'p9@x.test' }), google('g7')]),
      devices: ['phone'],
    };
    const d = decideUser(made, state);
    expect(d.kind === 'remove' && d.actions.map((a) => ('recipeUserId' in a ? a.recipeUserId : ''))).toEqual(['g7', 'st-9']);
    const changed = decideUser(made, { ...state, user: user('ext-9', [lm('ext-9', { email: 'other@x.test' }), google('g7')]) });
    expect(changed.kind === 'kept' && changed.reasons).toEqual(['the email (or phone) of an emailpassword login was changed since']);
    const old = runMadeOf('b', steps(['bulk', 'created', { recipeUserId: 'ext-9' }]));
    expect(decideUser(old, state).kind).toBe('kept');
    const forced = decideUser(old, state, { force: true });
    expect(forced.kind === 'remove' && forced.actions).toEqual([{ kind: 'remove-user', userId: 'st-9', aliases: ['st-9', 'ext-9'] }]);
  });

  it('finds nothing to do for a user the core no longer holds', () => {
    expect(decideUser(runMadeOf('u', createdSteps()), { stId: 'p1' }).kind).toBe('gone');
  });
});
