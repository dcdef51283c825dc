// The Firebase CSV reader (`firebase auth:export --format=csv`): detection (no longer a TOTP list), every
// positional column's mapping, the field report, broken rows, and a large file read in bounded memory.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFirebaseCsvExport } from '../../tools/generators/bulk-sources.js';
import { firebaseCsvLine } from '../../tools/generators/firebase-csv.js';
import { detectFormat, FieldReport, parseHashConfig, type HashConfig } from '../../src/sources/index.js';
import { sniffFormat } from '../../src/sources/detect.js';
import { expectBoundedRead } from './bounded.js';
import { byId, collect, fixture, tempDir } from '../support/sources.js';

let hashConfig: HashConfig;
let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

describe('detection', () => {
  it('tells a Firebase CSV export from a TOTP list, whatever the name', async () => {
    expect(await detectFormat(fixture('firebase/export.csv'))).toBe('firebase-csv');
    const renamed = await tmp.file('users.txt', await readFile(fixture('firebase/export.csv')));
    expect(await detectFormat(renamed)).toBe('firebase-csv');
    expect(await detectFormat(fixture('totp/firebase-secrets.csv'))).toBe('totp');
    expect(sniffFormat(firebaseCsvLine({ localId: 'u1', email: 'a@b.co' }) + '\n', 'x.csv')).toBe('firebase-csv');
    // Without the trailing comma (a hand-edited file) it is still recognised; a 27-column line is not.
    expect(sniffFormat(firebaseCsvLine({ localId: 'u1' }).slice(0, -1), 'x.csv')).toBe('firebase-csv');
    expect(sniffFormat('u1,a@b.co,true' + ',x'.repeat(24) + '\n', 'x.csv')).toBe('totp');
  });
});

describe('mapping', () => {
  it('maps every column of the fixture', async () => {
    const { records, all } = await collect([fixture('firebase/export.csv')], { hashConfig });
    expect(all.filter((p) => p.severity === 'error')).toEqual([]);
    const users = byId(records);
    const ann = users.get('fb-ann')!.record;
    expect(ann).toMatchObject({
      email: 'ann@example.com',
      emailVerified: true,
      password: { algorithm: 'external_scrypt' },
      timeJoined: Date.UTC(2022, 5, 1),
      metadata: {
        displayName: 'Ann Lee, PhD',
        photoUrl: 'https://example.com/ann.png',
        lastSignedInAt: Date.UTC(2022, 5, 31),
        customAttributes: { role: 'editor', plan: 'pro' },
      },
    });
    expect(ann.password!.hash).toMatch(/^\$f_scrypt\$/);
    expect(users.get('fb-ben')!.record.thirdParty).toEqual([
      { providerId: 'google', userId: '108000000000000000201', email: 'ben@example.com', emailVerified: true },
    ]);
    expect(users.get('fb-col')!.record).toMatchObject({ metadata: { displayName: 'Col' } });
    expect(users.get('fb-col')!.record.password).toBeUndefined();
    expect(users.get('fb-dot')!.record).toMatchObject({ phoneNumber: '+14155550201' });
    expect(users.get('fb-dot')!.record.disabled).toBeUndefined();
    expect(users.get('fb-fox')!.record.thirdParty!.map((t) => `${t.providerId}:${t.userId}:${t.email}`)).toEqual([
      'facebook:10200000000201:fox@example.com',
      'twitter:9900201:fox@example.com',
      'github:5500201:fox@example.com',
    ]);
    expect(users.get('fb-fox')!.record.emailVerified).toBe(false);
  });

  it('reads disabled, a missing hash config and the field report', async () => {
    const line = firebaseCsvLine({
      localId: 'u9',
      email: 'u9@example.com',
      emailVerified: false,
      passwordHash: 'aGFzaA==',
      salt: 'c2FsdA==',
      disabled: true,
      providerUserInfo: [
        { providerId: 'github.com', rawId: '77', email: 'gh@example.com', displayName: 'U, Nine', photoUrl: 'https://x/y.png' },
      ],
    });
    const path = await tmp.file('one.csv', line + '\r\n');
    const fields = new FieldReport();
    const { records } = await collect([path], { hashConfig, fields });
    expect(records[0]!.record).toMatchObject({ id: 'u9', disabled: true, emailVerified: false });
    expect(records[0]!.record.thirdParty).toEqual([{ providerId: 'github', userId: '77', email: 'gh@example.com' }]);
    const summary = fields.summary();
    expect(summary.mapped.map((e) => `${e.field}>${e.to}`)).toEqual([
      'disabled>disabled',
      'email>email',
      'emailVerified>emailVerified',
      'github.com.email>thirdParty[].email',
      'github.com.rawId>thirdParty[].userId',
      'localId>id',
      'passwordHash>password.hash (with the hash config)',
      'salt>password.hash (with the hash config)',
    ]);
    expect(summary.dropped.map((e) => e.field)).toEqual(['github.com.displayName', 'github.com.photoUrl']);

    const without = await collect([path], {});
    expect(without.all.map((p) => p.rule)).toContain('firebase.hash-config-missing');
  });

  it('takes a hash config of another algorithm as the JSON export does: legacyPassword', async () => {
    const path = await tmp.file(
      'hmac.csv',
      firebaseCsvLine({ localId: 'h1', email: 'h1@example.com', passwordHash: 'aGFzaA==', salt: 'c2FsdA==' }) + '\n',
    );
    const hmac = parseHashConfig(
      'hash_config { algorithm: HMAC_SHA256, base64_signer_key: a2V5, base64_salt_separator: , rounds: 0, mem_cost: 0 }',
    );
    const fields = new FieldReport();
    const { records } = await collect([path], { hashConfig: hmac, fields });
    expect(records[0]!.record.password).toBeUndefined();
    expect(records[0]!.record.legacyPassword).toMatchObject({ algorithm: 'firebase_hmac_sha256', hash: 'aGFzaA==' });
    expect(fields.summary().mapped.find((e) => e.field === 'passwordHash')?.to).toMatch(/^legacyPassword\.hash/);
  });

  it('names the record and field of every broken row, without echoing hashes', async () => {
    const { records, all } = await collect([fixture('broken/firebase-csv-bad.csv')], { hashConfig });
    const errors = all.filter((p) => p.severity === 'error').map((p) => `${p.origin.line} ${p.sourceId} ${p.field ?? ''} ${p.rule}`);
    expect(errors).toEqual([
      '2 fbc-url  firebase-csv.columns',
      '3 fbc-flag emailVerified source.type',
      '5 fbc-nosalt salt firebase.salt-missing',
    ]);
    // The row with a shifted column is its user's error (by uid), so the user is counted invalid, not lost.
    expect(records.map((r) => r.record.id)).toEqual(['fb-ann', 'fbc-url', 'fbc-flag', 'fbc-claims', 'fbc-nosalt']);
    expect(records[1]!.record).toEqual({ id: 'fbc-url' });
    // Custom claims that are not an object are left out with a warning, as in the JSON export.
    expect(all.find((p) => p.sourceId === 'fbc-claims' && p.field === 'customAttributes')?.severity).toBe('warning');
  });
});

describe('a large export', () => {
  it('streams 200,000 rows in bounded memory', async () => {
    const path = `${tmp.dir}/big.csv`;
    const { hashConfigPath } = await writeFirebaseCsvExport(path, 200_000);
    await expectBoundedRead(path, { hashConfigPath }, 200_000);
  }, 120_000);
});
