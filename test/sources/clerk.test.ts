// The Clerk reader (dashboard user export CSV): detection, every column's mapping (hashers the core takes and
// those it cannot, emails and phones verified or not, TOTP, names, metadata), the field report, broken rows, and a
// large file read in bounded memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClerkExport } from '../../tools/generators/bulk-sources.js';
import { CLERK_HEADER, clerkCsv } from '../../tools/generators/clerk.js';
import { sniffFormat } from '../../src/sources/detect.js';
import { readFile } from 'node:fs/promises';
import { verifyPassword } from '../../src/hashes/verify.js';
import { detectFormat, FieldReport, parseHashConfig } from '../../src/sources/index.js';
import { expectBoundedRead } from './bounded.js';
import { byId, collect, fixture, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

describe('detection', () => {
  it("knows Clerk's header, after comment lines too", async () => {
    expect(await detectFormat(fixture('clerk/users.csv'))).toBe('clerk');
    expect(await detectFormat(fixture('clerk/legacy-hashes.csv'))).toBe('clerk');
    expect(sniffFormat(CLERK_HEADER.join(',') + '\n', 'export.csv')).toBe('clerk');
    expect(sniffFormat('id,first_name,last_name,primary_email_address\n', 'x')).toBe('clerk');
    // A TOTP list with an id column is still a TOTP list.
    expect(sniffFormat('id,secret\nu1,JBSWY3DPEHPK3PXP\n', 'x.csv')).toBe('totp');
  });
});

describe('mapping', () => {
  it('maps every column of the fixture', async () => {
    const fields = new FieldReport();
    const hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
    const { records, all } = await collect([fixture('clerk/users.csv')], { fields, hashConfig });
    expect(all).toEqual([]);
    const users = byId(records);
    expect(users.get('user_2ann')!.record).toEqual({
      id: 'user_2ann',
      email: 'ann@clerk.example',
      emailVerified: true,
      password: { hash: expect.stringMatching(/^\$2b\$06\$/) as unknown as string, algorithm: 'bcrypt' },
      metadata: {
        first_name: 'Ann',
        last_name: 'Clerkson',
        public_metadata: { plan: 'pro' },
        private_metadata: { stripeCustomer: 'cus_0001' },
      },
      timeJoined: Date.UTC(2024, 1, 1),
    });
    const bob = users.get('user_2bob')!.record;
    expect(bob.password).toMatchObject({ algorithm: 'argon2' });
    expect(bob.password!.hash).toMatch(/^\$argon2id\$/);
    expect(bob.totp).toEqual([{ secret: expect.stringMatching(/^[A-Z2-7]{32}$/) as unknown as string, encoding: 'base32' }]);
    expect(bob.metadata).toEqual({ first_name: 'Bob', username: 'bobby' });
    expect(bob.email).toBe('bob@clerk.example');
    expect(users.get('user_2cy')!.record).toEqual({
      id: 'user_2cy',
      phoneNumber: '+14155550301',
      metadata: { last_name: 'Phone' },
      timeJoined: Date.UTC(2024, 1, 3),
    });
    const dee = users.get('user_2dee')!.record;
    expect(dee).toMatchObject({ email: 'dee@clerk.example', emailVerified: false, metadata: { unsafe_metadata: { theme: 'dark' } } });
    expect(dee.phoneNumber).toBeUndefined();
    expect(users.get('user_2eve')!.record).toMatchObject({
      metadata: { first_name: 'Eve', last_name: 'Two, Factor' },
      timeJoined: Date.UTC(2024, 1, 5),
    });

    // scrypt_firebase (Clerk's Backend API layout: hash$salt$signer key$separator$rounds$memory cost) becomes the
    // core's Firebase scrypt string; the known password verifies with the project's signer key.
    const fay = users.get('user_2fay')!.record;
    expect(fay.password).toEqual({
      hash: expect.stringMatching(/^\$f_scrypt\$[^$]+\$[^$]+\$m=14\$r=8\$s=Bw==$/),
      algorithm: 'external_scrypt',
    });
    const known = /\| fay@clerk\.example \| `([^`]+)`/.exec(await readFile(fixture('README.md'), 'utf8'))![1]!;
    expect(await verifyPassword(fay.password!.hash, known, { signerKey: hashConfig.signerKey })).toEqual({ result: 'match' });
    expect(await verifyPassword(fay.password!.hash, `${known}!`, { signerKey: hashConfig.signerKey })).toEqual({ result: 'mismatch' });

    const summary = fields.summary();
    expect(summary.mapped.map((e) => `${e.field}>${e.to} ${e.records}`)).toEqual([
      'created_at>timeJoined 5',
      'first_name>metadata.first_name 4',
      'id>id 6',
      'last_name>metadata.last_name 3',
      'password_digest>password.hash 5',
      'password_hasher>password.algorithm 5',
      'primary_email_address>email 5',
      'primary_phone_number>phoneNumber 1',
      'private_metadata>metadata.private_metadata 1',
      'public_metadata>metadata.public_metadata 1',
      'totp_secret>totp[0].secret 3',
      'unsafe_metadata>metadata.unsafe_metadata 1',
      'unverified_email_addresses>emailVerified 1',
      'username>metadata.username 1',
      'verified_email_addresses>emailVerified 4',
    ]);
    expect(summary.dropped.map((e) => `${e.field} ${e.records}`)).toEqual([
      'backup_codes 1',
      'backup_codes_enabled 1',
      'verified/unverified_email_addresses (not primary) 2',
      'verified/unverified_phone_numbers (not primary) 1',
    ]);
  });

  it('carries hashers the core cannot verify as legacyPassword', async () => {
    const { records, all } = await collect([fixture('clerk/legacy-hashes.csv')]);
    expect(all).toEqual([]);
    expect(records.map((r) => [r.record.password, r.record.legacyPassword?.algorithm])).toEqual([
      [undefined, 'md5'],
      [undefined, 'pbkdf2_sha256_django'],
    ]);
    expect(records[0]!.record.legacyPassword!.hash).toMatch(/^[0-9a-f]{32}$/);
  });

  it('names unknown columns once, and refuses a file without an id column', async () => {
    const path = await tmp.file(
      'extra.csv',
      'id,primary_email_address,password_digest,password_hasher,favourite_colour\nu1,a@b.co,,,blue\nu2,c@d.co,,,red\n',
    );
    const fields = new FieldReport();
    await collect([path], { fields });
    expect(fields.summary().dropped).toEqual([
      { format: 'clerk', field: 'favourite_colour', reason: expect.stringContaining('not a column') as unknown as string, records: 2 },
    ]);
    const noId = await tmp.file('noid.csv', 'first_name,primary_email_address\nAnn,a@b.co\n');
    await expect(collect([noId], { format: 'clerk' })).rejects.toThrow(/the header has no "id" column/);
  });

  it('names the record and field of every broken row', async () => {
    const { all } = await collect([fixture('broken/clerk-bad.csv')]);
    expect(all.map((p) => `${p.severity} ${p.origin.line} ${p.sourceId ?? '-'} ${p.field ?? ''} ${p.rule}`)).toEqual([
      'error 4 - id source.required',
      'error 3 user_2nohasher password_hasher clerk.hasher-missing',
      'warning 5 user_2meta public_metadata source.json-field',
    ]);
  });
});

describe('a large export', () => {
  it('streams 200,000 rows in bounded memory', async () => {
    const path = `${tmp.dir}/big-clerk.csv`;
    await writeClerkExport(path, 200_000);
    await expectBoundedRead(path, {}, 200_000);
  }, 120_000);
});

it('clerkCsv quotes what needs quoting', () => {
  expect(clerkCsv([{ id: 'u', last_name: 'A, "B"' }]).split('\n')[1]).toBe('u,,"A, ""B"""' + ','.repeat(CLERK_HEADER.length - 3));
});
