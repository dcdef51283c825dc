// The small parts of the sign-in module: Cognito's verdicts, the entry a record gets, the unusable placeholder,
// the timing pad, and the wizard's one-line counts.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { cognitoVerdict } from '../../src/signin/cognito.js';
import {
  endingUpdate,
  LEGACY_DONE_KEY,
  LEGACY_ENTRY_KEY,
  legacyEntryFor,
  readLegacyEntry,
  unusableBcryptHash,
} from '../../src/signin/entry.js';
import { TimingPad } from '../../src/signin/timing.js';
import { signInStatusLine } from '../../src/ui/screens/ResultsScreen.js';

describe('cognitoVerdict', () => {
  it.each([
    [{ AuthenticationResult: { AccessToken: 'x' } }, undefined, 'OK'],
    [{ ChallengeName: 'NEW_PASSWORD_REQUIRED' }, undefined, 'RESET_REQUIRED'],
    [{ ChallengeName: 'SOFTWARE_TOKEN_MFA' }, undefined, 'OK'],
    [undefined, { name: 'NotAuthorizedException' }, 'WRONG_PASSWORD'],
    [undefined, { name: 'UserNotFoundException' }, 'WRONG_PASSWORD'],
    [undefined, { name: 'PasswordResetRequiredException' }, 'RESET_REQUIRED'],
  ])('%j / %j -> %s', (answer, error, verdict) => {
    expect(cognitoVerdict(answer, error)).toBe(verdict);
  });
  it('other errors (the pool is down, throttling) are thrown on, never taken for a wrong password', () => {
    expect(() => cognitoVerdict(undefined, Object.assign(new Error('down'), { name: 'InternalErrorException' }))).toThrow('down');
  });
});

describe('entries', () => {
  const record = { id: 'u1', email: 'u1@x.io', legacyPassword: { algorithm: 'md5', hash: 'abc', salt: 's' }, disabled: true };
  it('a record with a legacy hash and an email gets an entry; the disabled role only when disabled', () => {
    expect(legacyEntryFor(record, 'blocked', 5)).toEqual({
      v: 1,
      sourceId: 'u1',
      since: 5,
      algorithm: 'md5',
      hash: 'abc',
      salt: 's',
      disabledRole: 'blocked',
    });
    expect(legacyEntryFor({ ...record, disabled: false }, 'blocked', 5)?.disabledRole).toBeUndefined();
    expect(legacyEntryFor({ ...record, email: undefined }, undefined, 5)).toBeUndefined();
    expect(legacyEntryFor({ ...record, password: { hash: '$2a$...' } }, undefined, 5)).toBeUndefined();
  });
  it('ending an entry removes the key and leaves a marker without the hash', () => {
    const entry = legacyEntryFor(record, undefined, 5)!;
    const update = endingUpdate(entry, 'sign-in', 9);
    expect(update).toEqual({ [LEGACY_ENTRY_KEY]: null, [LEGACY_DONE_KEY]: { at: 9, via: 'sign-in', algorithm: 'md5', since: 5 } });
    expect(readLegacyEntry({ [LEGACY_ENTRY_KEY]: 'not an entry' })).toBeUndefined();
  });
  it('the placeholder is a well-formed bcrypt string of cost 11 that a password does not open, new each time', async () => {
    const a = unusableBcryptHash();
    expect(a).toMatch(/^\$2a\$11\$[./A-Za-z0-9]{53}$/);
    expect(unusableBcryptHash()).not.toBe(a);
    expect(await bcrypt.compare('', a)).toBe(false);
  });
});

describe('TimingPad', () => {
  it('holds an answer until the slowest recent check has passed, and never less than the floor', async () => {
    const pad = new TimingPad(5);
    expect(pad.targetMs).toBe(5);
    pad.observe(40);
    expect(pad.targetMs).toBe(40);
    pad.observe(1); // a cheap check (md5) does not make the others faster at once
    expect(pad.targetMs).toBeGreaterThan(37);
    for (let i = 0; i < 200; i++) pad.observe(1);
    expect(pad.targetMs).toBe(5);
    pad.observe(40);
    const started = performance.now();
    await pad.waitFrom(started);
    expect(performance.now() - started).toBeGreaterThanOrEqual(34);
  });
});

describe("the wizard's results line", () => {
  it('says how many wait, per algorithm, and how the others ended', () => {
    expect(
      signInStatusLine({ waiting: 3, ended: { 'sign-in': 2, 'password-set': 1, expired: 0 }, byAlgorithm: { md5: 2, pbkdf2: 1, sha1: 0 } }),
    ).toBe('sign-in migration: 3 waiting (md5 2, pbkdf2 1) · signed in 2 · password set 1 · expired 0 (auth-migrate signin-status)');
  });
});
