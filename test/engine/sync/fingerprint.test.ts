// Fingerprints (sync/fingerprint.ts): every part's change is seen and named, nothing of a value is in them, and
// a run journals one per finished user under its header's key (old journals without them still load).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CanonicalUser } from '../../../src/records/types.js';
import {
  changedParts,
  decodeFingerprint,
  fingerprint,
  fingerprintBytes,
  fingerprintKey,
  FINGERPRINT_CHARS,
  newFingerprintKey,
  type Part,
} from '../../../src/engine/sync/fingerprint.js';
import { loadJournal, openJournal } from '../../../src/engine/journal/journal.js';
import { decodeJournalLine } from '../../../src/engine/journal/lines.js';

const HASH = '$2a$10$abcdefghijklmnopqrstuu7Yf1rBFGqLSFWXEFc9gIDz8sHZz4mSu';
const base: CanonicalUser = {
  id: 'u1',
  email: 'alice@example.com',
  emailVerified: true,
  password: { hash: HASH, algorithm: 'bcrypt' },
  phoneNumber: '+14155550100',
  thirdParty: [{ providerId: 'google', userId: 'g-1', email: 'alice@example.com', emailVerified: true }],
  totp: [{ secret: 'JBSWY3DPEHPK3PXP', deviceName: 'phone', encoding: 'base32', period: 30, skew: 1 }],
  otpFactors: { phoneNumber: '+14155550101' },
  metadata: { plan: 'gold', nested: { a: 1, b: [1, 2] } },
  roles: ['admin', { role: 'viewer', tenantIds: ['t1'] }],
  disabled: false,
  externalUserId: 'ext-1',
};

const key = fingerprintKey(newFingerprintKey());

const changes: Array<[Part, Partial<CanonicalUser>]> = [
  ['password', { password: { hash: HASH.replace('u7Y', 'u7Z'), algorithm: 'bcrypt' } }],
  ['email', { email: 'alice2@example.com' }],
  ['verified', { emailVerified: false }],
  ['phone', { phoneNumber: '+14155550199' }],
  ['thirdParty', { thirdParty: [] }],
  ['totp', { totp: [{ secret: 'JBSWY3DPEHPK3PXQ', deviceName: 'phone', encoding: 'base32', period: 30, skew: 1 }] }],
  ['otp', { otpFactors: { email: 'alice@example.com' } }],
  ['metadata', { metadata: { plan: 'gold', nested: { a: 2, b: [1, 2] } } }],
  ['roles', { roles: ['admin'] }],
  ['disabled', { disabled: true }],
  ['externalId', { externalUserId: 'ext-2' }],
];

describe('fingerprints', () => {
  it('are the same for the same user, whatever the order of keys, roles or logins', () => {
    const shuffled: CanonicalUser = {
      ...base,
      metadata: { nested: { b: [1, 2], a: 1 }, plan: 'gold' },
      roles: [{ role: 'viewer', tenantIds: ['t1'] }, 'admin'],
    };
    expect(fingerprint(shuffled, key)).toBe(fingerprint(base, key));
    expect(changedParts(fingerprintBytes(base, key), fingerprintBytes(shuffled, key))).toEqual([]);
    expect(fingerprint(base, key)).toHaveLength(FINGERPRINT_CHARS);
  });

  it.each(changes)('name a change of %s and nothing else', (part, change) => {
    const after = { ...base, ...change };
    expect(changedParts(fingerprintBytes(base, key), fingerprintBytes(after, key))).toEqual([part]);
  });

  it('differ between keys, and hold nothing of the values', () => {
    const other = fingerprintKey(newFingerprintKey());
    expect(fingerprint(base, other)).not.toBe(fingerprint(base, key));
    const text = fingerprint(base, key);
    for (const value of ['alice', 'example', 'JBSW', HASH.slice(7, 20), 'gold', '4155550100']) expect(text).not.toContain(value);
    expect(decodeFingerprint(text)).toEqual(fingerprintBytes(base, key));
    expect(decodeFingerprint('short')).toBeUndefined();
  });

  it("a part's two bytes are spread evenly: each value is shared by many emails, so none can be told from it", () => {
    const seen = new Map<number, number>();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const fp = fingerprintBytes({ ...base, email: `guess${i}@example.com` }, key);
      const v = fp.readUInt16LE(10); // email is part 1: after the 8 bytes of the whole and part 0's 2
      seen.set(v, (seen.get(v) ?? 0) + 1);
    }
    // 100,000 draws into 65,536 values: about 51,300 distinct if evenly spread, and no value much fuller than 8.
    expect(seen.size).toBeGreaterThan(49_000);
    expect(seen.size).toBeLessThan(54_000);
    expect(Math.max(...seen.values())).toBeLessThan(12);
  });
});

describe('the journal carries them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'am-fp-journal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a key in the run header, kept by a resumed run; fp on the finishing line; read back by the loader', async () => {
    const path = join(dir, 'j.ndjson');
    const identity = { sources: ['/x.ndjson'], target: 'sandbox:/s.json' };
    const j = await openJournal(path, identity);
    const fp = fingerprint(base, fingerprintKey(j.fingerprintKey!));
    j.append({ type: 'step', user: 'u1', step: 'password', result: 'created', ids: { recipeUserId: 'r1' } });
    j.append({ type: 'user', user: 'u1', outcome: 'imported', fp });
    await j.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'run', fpKey: j.fingerprintKey });
    expect(JSON.parse(lines[1]!)).toEqual({ user: 'u1', step: 'password', created: { recipeUserId: 'r1' }, outcome: 'imported', fp });
    expect(decodeJournalLine(lines[1]!)[1]).toEqual({ type: 'user', user: 'u1', outcome: 'imported', fp });
    const again = await openJournal(path, identity);
    expect(again.fingerprintKey).toBe(j.fingerprintKey);
    await again.close();
    expect((await loadJournal(path)).fpKey).toBe(j.fingerprintKey);
  });

  it('a journal written before fingerprints loads, and a run resuming it gives it a key from then on', async () => {
    const path = join(dir, 'old.ndjson');
    const identity = { sources: ['/x.ndjson'], target: 'sandbox:/s.json' };
    writeFileSync(
      path,
      [
        JSON.stringify({ type: 'run', version: 2, identity, id: 'x', startedAt: '2026-01-01T00:00:00Z' }),
        JSON.stringify({ user: 'u1', step: 'password', created: { recipeUserId: 'r1' }, outcome: 'imported' }),
      ].join('\n') + '\n',
    );
    const loaded = await loadJournal(path);
    expect(loaded.fpKey).toBeUndefined();
    expect(loaded.users.get('u1')?.outcome).toBe('imported');
    const j = await openJournal(path, identity);
    expect(j.fingerprintKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await j.close();
    expect((await loadJournal(path)).fpKey).toBe(j.fingerprintKey);
  });
});
