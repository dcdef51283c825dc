// The small parts of migration at first sign-in: Cognito's verdicts, the signed entry a record gets, its MAC, the
// placeholder, the timing pad, and the wizard's one-line counts.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { cognitoVerdict } from 'auth-migrate-signin';
import {
  endingUpdate,
  entryMacValid,
  LEGACY_DONE_KEY,
  LEGACY_ENTRY_KEY,
  PLACEHOLDER_PREFIX,
  placeholderPassword,
  readLegacyEntry,
} from 'auth-migrate-signin/protocol';
import { TimingPad } from '../../packages/signin/src/timing.js';
import { signInSigner, unusableBcryptHash } from '../../src/signin/run-entry.js';
import { signInStatusLine } from '../../src/ui/screens/ResultsScreen.js';

const SECRET = 'a-test-secret-of-at-least-32-characters';

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
  const record = { id: 'u1', email: 'U1@x.io', legacyPassword: { algorithm: 'md5', hash: 'abc', salt: 's' }, disabled: true };
  const signer = signInSigner(SECRET);
  it('a record with a legacy hash and an email gets a signed entry; the disabled role only when disabled', () => {
    const entry = signer.entry(record, 'blocked', 5)!;
    expect(entry).toEqual({
      v: 2,
      sourceId: 'u1',
      email: 'U1@x.io',
      since: 5,
      algorithm: 'md5',
      hash: 'abc',
      salt: 's',
      disabledRole: 'blocked',
      mac: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    // The login's email in the core may differ in ASCII case only.
    expect(entryMacValid(SECRET, entry, 'u1@x.io')).toBe(true);
    expect(signer.entry({ ...record, disabled: false }, 'blocked', 5)?.disabledRole).toBeUndefined();
    expect(signer.entry({ ...record, email: undefined }, undefined, 5)).toBeUndefined();
    expect(signer.entry({ ...record, password: { hash: '$2a$...' } }, undefined, 5)).toBeUndefined();
  });
  it.each([
    ['hash', { hash: 'abd' }],
    ['salt', { salt: 't' }],
    ['salt removed', { salt: undefined }],
    ['algorithm', { algorithm: 'sha1' }],
    ['params', { params: { iterations: 1 } }],
    ['since', { since: 6 }],
    ['disabled role removed', { disabledRole: undefined }],
    ['source id', { sourceId: 'u2' }],
    ['mac', { mac: 'A'.repeat(43) }],
  ])('any field changed (%s) fails the MAC', (_name, change) => {
    const entry = signer.entry(record, 'blocked', 5)!;
    expect(entryMacValid(SECRET, { ...entry, ...change }, 'u1@x.io')).toBe(false);
  });
  it('an entry copied to another login (another email) or checked with another secret fails the MAC', () => {
    const entry = signer.entry(record, undefined, 5)!;
    expect(entryMacValid(SECRET, entry, 'u2@x.io')).toBe(false);
    expect(entryMacValid(SECRET.replace('a', 'b'), entry, 'u1@x.io')).toBe(false);
  });
  it('ending an entry removes the key and leaves a marker without the hash', () => {
    const entry = signer.entry(record, undefined, 5)!;
    const update = endingUpdate(entry, 'sign-in', 9);
    expect(update).toEqual({
      [LEGACY_ENTRY_KEY]: null,
      [LEGACY_DONE_KEY]: { at: 9, via: 'sign-in', algorithm: 'md5', since: 5, sourceId: 'u1' },
    });
    expect(JSON.stringify(update)).not.toContain('abc');
  });
  it.each([
    ['not an object', 'not an entry'],
    ['a version 1 entry (no MAC)', { v: 1, sourceId: 'u1', algorithm: 'md5', hash: 'abc', since: 5 }],
    ['no email', { v: 2, sourceId: 'u1', algorithm: 'md5', hash: 'abc', since: 5, mac: 'x' }],
    ['params not flat', { v: 2, sourceId: 'u1', email: 'e', algorithm: 'md5', hash: 'abc', since: 5, mac: 'x', params: { a: {} } }],
  ])('a value that is not an entry is named invalid, never guessed: %s', (_name, value) => {
    expect(readLegacyEntry({ [LEGACY_ENTRY_KEY]: value })).toEqual({ invalid: expect.any(String) });
  });
  it("the login's password is bcrypt of the placeholder, derived from the secret and the source id", async () => {
    const hash = signer.placeholderHash('u1');
    expect(hash).toMatch(/^\$2[ab]\$04\$[./A-Za-z0-9]{53}$/);
    const placeholder = placeholderPassword(SECRET, 'u1');
    expect(placeholder).toMatch(new RegExp(`^${PLACEHOLDER_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(await bcrypt.compare(placeholder, hash)).toBe(true);
    expect(await bcrypt.compare(placeholderPassword(SECRET, 'u2'), hash)).toBe(false);
    expect(JSON.stringify(signer)).toBe('{}');
  });
  it("a dry run's stand-in is a well-formed bcrypt string a password does not open, new each time", async () => {
    const a = unusableBcryptHash();
    expect(a).toMatch(/^\$2a\$04\$[./A-Za-z0-9]{53}$/);
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
