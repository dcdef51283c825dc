// The Supabase reader: auth.users joined with auth.identities and auth.mfa_factors, from `\copy ... csv header`
// files or JSON lines; every documented column's mapping, what is dropped and why, broken rows, bounded memory.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSupabaseExport } from '../../tools/generators/bulk-tables.js';
import { readFile } from 'node:fs/promises';
import { verifyPassword } from '../../src/hashes/verify.js';
import { FieldReport, parseHashConfig, type HashConfig } from '../../src/sources/index.js';
import { pgTimestamp } from '../../src/sources/table-rows.js';
import { collect, fixture, readUntilError, tempDir } from '../support/sources.js';

const CSV = ['supabase/users.csv', 'supabase/identities.csv', 'supabase/mfa_factors.csv'].map(fixture);
const JSONL = ['supabase/users.ndjson', 'supabase/identities.ndjson', 'supabase/mfa_factors.ndjson'].map(fixture);
const USERS_HEADER =
  'id,email,encrypted_password,email_confirmed_at,phone,phone_confirmed_at,raw_app_meta_data,raw_user_meta_data,created_at,banned_until,deleted_at,is_anonymous';
const BCRYPT = '$2a$10$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';

let tmp: Awaited<ReturnType<typeof tempDir>>;
/** The Firebase fixture project's hash config: the signer key fay's $fbscrypt$ digest carries. */
let hashConfig: HashConfig;
beforeAll(async () => {
  tmp = await tempDir();
  hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
});
afterAll(async () => {
  await tmp.cleanup();
});

const byEmail = (records: Awaited<ReturnType<typeof collect>>['records'], email: string) =>
  records.find((r) => r.record.email === email)!.record;

describe('Supabase reader', () => {
  it('maps every documented column of the three tables (CSV)', async () => {
    const { records, all } = await collect(CSV, { hashConfig });
    expect(all.filter((p) => p.severity === 'error')).toEqual([]);
    expect(records).toHaveLength(6);
    const ada = byEmail(records, 'ada.sb@example.com');
    expect(ada).toEqual({
      id: ada.id,
      email: 'ada.sb@example.com',
      emailVerified: true,
      password: { hash: expect.stringMatching(/^\$2a\$10\$/) },
      metadata: {
        user_metadata: { full_name: 'Ada Lovelace', plan: 'pro' },
        app_metadata: { provider: 'email', providers: ['email'], roles: ['admin', 'editor'] },
      },
      roles: ['admin', 'editor'],
      timeJoined: Date.UTC(2024, 1, 1, 9, 30, 0, 123),
      // Only the verified factor: the unverified one is dropped.
      totp: [{ secret: expect.stringMatching(/^[A-Z2-7]{32}$/), encoding: 'base32', period: 30, deviceName: 'Ada phone' }],
    });
    const bo = byEmail(records, 'bo.sb@example.com');
    expect(bo).toMatchObject({ emailVerified: false, otpFactors: { phoneNumber: '+14155550142' } });
    expect(bo.disabled).toBeUndefined(); // banned_until in the past
    expect(bo.metadata).toEqual({ app_metadata: { provider: 'email', providers: ['email'] } });
    const cy = byEmail(records, 'cy.sb@example.com');
    expect(cy.password).toBeUndefined();
    expect(cy.thirdParty).toEqual([
      { providerId: 'google', userId: '110000000000000000601', email: 'cy.sb@example.com', emailVerified: true },
    ]);
    const di = records.find((r) => r.record.email === undefined)!.record;
    expect(di).toMatchObject({ phoneNumber: '+14155550170' });
    expect(di.thirdParty).toBeUndefined(); // the phone identity is the user's own phone
    const ed = byEmail(records, 'ed.sb@example.com');
    expect(ed).toMatchObject({ disabled: true, thirdParty: [{ providerId: 'github', userId: '8800801' }] });
    // A Firebase user imported into Supabase: its $fbscrypt$ digest is the core's Firebase scrypt string, and the
    // password the fixtures list verifies with the project's signer key (spot-check, as the core does it).
    const fay = byEmail(records, 'fay.sb@example.com');
    expect(fay.password).toEqual({
      hash: expect.stringMatching(/^\$f_scrypt\$[^$]+\$[^$]+\$m=14\$r=8\$s=Bw==$/),
      algorithm: 'external_scrypt',
    });
    expect(fay.legacyPassword).toBeUndefined();
    const known = /\| fay\.sb@example\.com \| `([^`]+)`/.exec(await readFile(fixture('README.md'), 'utf8'))![1]!;
    expect(await verifyPassword(fay.password!.hash, known, { signerKey: hashConfig.signerKey })).toEqual({ result: 'match' });
    expect(await verifyPassword(fay.password!.hash, `${known}x`, { signerKey: hashConfig.signerKey })).toEqual({ result: 'mismatch' });
    expect(fay.totp).toHaveLength(1);
  });

  it('reads the same records from JSON lines (row_to_json) as from CSV', async () => {
    const csv = await collect(CSV, { hashConfig });
    const jsonl = await collect(JSONL, { hashConfig });
    expect(jsonl.all).toEqual([]);
    expect(jsonl.records.map((r) => r.record)).toEqual(csv.records.map((r) => r.record));
  });

  it('names what it carried and what it dropped, once per column', async () => {
    const fields = new FieldReport();
    await collect(CSV, { fields, hashConfig });
    const s = fields.summary();
    const mapped = Object.fromEntries(s.mapped.map((e) => [e.field, e]));
    expect(mapped['users.encrypted_password']).toMatchObject({ to: expect.stringMatching(/^password\.hash/), records: 4 });
    expect(mapped['users.raw_user_meta_data']).toMatchObject({ to: 'metadata.user_metadata' });
    expect(mapped['users.banned_until']).toMatchObject({ to: 'disabled', records: 2 });
    expect(mapped['mfa_factors.secret (totp)']).toMatchObject({ to: 'totp[].secret', records: 2 });
    expect(mapped['mfa_factors.phone']).toMatchObject({ to: 'otpFactors.phoneNumber' });
    expect(mapped['identities.provider, provider_id']).toMatchObject({ records: 2 });
    const dropped = Object.fromEntries(s.dropped.map((e) => [e.field, e]));
    expect(dropped['users.last_sign_in_at']).toMatchObject({ records: 6, reason: 'the core keeps no last sign-in time' });
    expect(dropped['mfa_factors (status unverified)']?.reason).toMatch(/never completed/);
    expect(JSON.stringify(s)).not.toMatch(/\$2a\$|[A-Z2-7]{32}/);
  });

  it('handles bans, soft deletes, anonymous users, unconfirmed phones and the old identities schema', async () => {
    const users = await tmp.file(
      'users.csv',
      [
        USERS_HEADER,
        `u1,a@example.com,${BCRYPT},,,,,,2024-01-01 00:00:00+00,infinity,,f`,
        `u2,b@example.com,${BCRYPT},,,,,,2024-01-01 00:00:00+00,,2024-06-01 00:00:00+00,f`,
        `u3,,,,,,,,2024-01-01 00:00:00+00,,,t`,
        `u4,,,,4915112345678,,,,2024-01-01 00:00:00+00,,,f`,
        `u5,e@example.com,,2024-01-01 00:00:00+00,,,"{""roles"":[""x"",""x""],""provider"":""azure""}",,2024-01-01T00:00:00.5+02:00,2999-01-01 00:00:00+00,,false`,
      ].join('\r\n') + '\r\n',
    );
    // Exports from before provider_id: the provider's id is identity_data.sub.
    const identities = await tmp.file(
      'identities.csv',
      'id,user_id,identity_data,provider,created_at\n' +
        `abc,u5,"{""sub"":""ms-42"",""email"":""e@example.com""}",azure,2024-01-01 00:00:00+00\n`,
    );
    const factors = await tmp.file(
      'factors.csv',
      [
        'id,user_id,friendly_name,factor_type,status,secret,phone,created_at',
        'f1,u1,key,webauthn,verified,,,2024-01-01 00:00:00+00',
        'f2,u1,,phone,verified,,4915112345678,2024-01-01 00:00:00+00',
        'f3,u1,,phone,verified,,4915112345679,2024-01-01 00:00:00+00',
        `f4,u1,,totp,verified,"{""key_id"":""k"",""data"":""c2VjcmV0""}",,2024-01-01 00:00:00+00`,
        'f5,nobody,,totp,verified,JBSWY3DPEHPK3PXP,,2024-01-01 00:00:00+00',
      ].join('\n'),
    );
    const fields = new FieldReport();
    const { records, problems } = await collect([factors, users, identities], { fields });
    const r = new Map(records.map((x) => [x.record.id, x]));
    expect(r.get('u1')!.record).toMatchObject({ disabled: true, otpFactors: { phoneNumber: '+4915112345678' } });
    expect(r.get('u1')!.problems.map((p) => [p.rule, p.severity])).toEqual([
      ['supabase.mfa-extra-phone', 'warning'],
      ['supabase.secret-encrypted', 'error'],
    ]);
    expect(
      r
        .get('u1')!
        .problems.map((p) => p.message)
        .join(' '),
    ).not.toContain('c2VjcmV0');
    expect(r.get('u2')!.record.disabled).toBe(true);
    expect(r.get('u2')!.problems.map((p) => p.rule)).toEqual(['supabase.soft-deleted']);
    expect(r.get('u3')!.problems.map((p) => p.rule)).toEqual(['supabase.anonymous']);
    expect(r.get('u4')!.record.phoneNumber).toBeUndefined();
    expect(r.get('u4')!.problems.map((p) => p.rule)).toEqual(['supabase.phone-unconfirmed']);
    expect(r.get('u5')!.record).toMatchObject({
      emailVerified: true,
      roles: ['x'],
      disabled: true,
      timeJoined: Date.UTC(2023, 11, 31, 22, 0, 0, 500),
      thirdParty: [{ providerId: 'microsoft', userId: 'ms-42', email: 'e@example.com' }],
    });
    expect(problems.map((p) => [p.rule, p.sourceId, p.origin.line])).toEqual([['supabase.unmatched', 'nobody', 6]]);
    expect(fields.summary().dropped.map((e) => e.field)).toContain('mfa_factors (factor_type webauthn)');
  });

  it("takes bcrypt and argon2 hashes, converts $fbscrypt$ to the core's Firebase scrypt string, carries the others as legacyPassword", async () => {
    const argon = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG';
    const fb = '$fbscrypt$v=1,n=14,r=8,p=1,ss=Bw==,sk=c2lnbmVy$c2FsdA==$aGFzaA==';
    const fbP2 = '$fbscrypt$v=1,n=14,r=8,p=2,ss=Bw==,sk=c2lnbmVy$c2FsdA==$aGFzaA==';
    const md5 = '$md5$abc';
    const users = await tmp.file(
      'hashes.csv',
      [
        USERS_HEADER,
        `h1,h1@example.com,"${argon}",,,,,,,,,f`,
        `h2,h2@example.com,"${fb}",,,,,,,,,f`,
        `h3,h3@example.com,"${fbP2}",,,,,,,,,f`,
        `h4,h4@example.com,${md5},,,,,,,,,f`,
      ].join('\n') + '\n',
    );
    const { records, problems } = await collect([users]);
    expect(records[0]!.record.password).toEqual({ hash: argon });
    // GoTrue's layout (supabase/auth internal/crypto/password.go): n is mem_cost, r rounds, ss the separator;
    // the signer key (sk) leaves the string: it is the core's configuration.
    expect(records[1]!.record.password).toEqual({ hash: '$f_scrypt$aGFzaA==$c2FsdA==$m=14$r=8$s=Bw==', algorithm: 'external_scrypt' });
    expect(records[1]!.record.legacyPassword).toBeUndefined();
    expect(records[1]!.problems).toEqual([]);
    // p=2 is not Firebase's scrypt (p=1): kept for migration at first sign-in, with a warning that says why.
    expect(records[2]!.record.password).toBeUndefined();
    expect(records[2]!.record.legacyPassword).toEqual({ algorithm: 'fbscrypt', hash: fbP2 });
    expect(records[2]!.problems.map((p) => `${p.severity} ${p.rule}`)).toEqual(['warning supabase.fbscrypt']);
    expect(JSON.stringify(records[2]!.problems)).not.toContain('c2lnbmVy');
    // Another hash: the verdict is the validator's (password.unusable, by --unusable-hashes); the reader adds none.
    expect(records[3]!.record.legacyPassword).toEqual({ algorithm: 'md5', hash: md5 });
    expect(records[3]!.problems).toEqual([]);
    // No signer key was given: one warning says where it comes from, without the key.
    expect(problems.map((p) => `${p.severity} ${p.rule}`)).toEqual(['warning password.scrypt.signer-key-needed']);
    expect(problems[0]!.message).not.toContain('c2lnbmVy');
  });

  it('reads a pretty-printed JSON array (the SQL editor download) as well', async () => {
    const rows = [
      { id: 'j1', email: 'j1@example.com', encrypted_password: BCRYPT, email_confirmed_at: null, raw_user_meta_data: { a: 1 } },
    ];
    const users = await tmp.file('users.json', JSON.stringify(rows, null, 2));
    const { records, all } = await collect([users]);
    expect(all).toEqual([]);
    expect(records.map((r) => r.record)).toEqual([
      { id: 'j1', email: 'j1@example.com', emailVerified: false, password: { hash: BCRYPT }, metadata: { user_metadata: { a: 1 } } },
    ]);
  });

  it('reports broken rows by line and refuses files it cannot place', async () => {
    const { records, problems } = await collect([fixture('broken/supabase-users.csv'), fixture('broken/supabase-mfa_factors.csv')]);
    expect(problems.map((p) => [p.origin.line, p.rule])).toEqual([
      [3, 'source.required'],
      [3, 'supabase.unmatched'],
    ]);
    const rules = records.flatMap((r) => r.problems.map((p) => [r.origin.line, p.field, p.rule]));
    // The short row (line 5) is its user's error: the user is named, invalid, and holds nothing else.
    expect(rules).toEqual([
      [2, 'raw_user_meta_data', 'source.type'],
      [4, 'raw_app_meta_data.roles', 'source.type'],
      [4, 'mfa_factors.secret', 'supabase.secret-encrypted'],
      [5, undefined, 'source.csv'],
    ]);
    expect(records.find((r) => r.origin.line === 5)!.record).toEqual({ id: '00000000-0000-4000-a000-000000000006' });
    expect((await readUntilError([fixture('supabase/identities.csv')])).error.message).toMatch(/no auth\.users export among/);
    const other = await tmp.file('other.csv', 'id,email,encrypted_password\n');
    const stray = await tmp.file('stray.csv', 'id,name\n1,x\n');
    expect((await readUntilError([other, stray], { format: 'supabase' })).error.message).toMatch(
      /stray\.csv is not an export of auth\.users, auth\.identities or auth\.mfa_factors/,
    );
  });

  it('reads Postgres timestamps in text and JSON form', () => {
    expect(pgTimestamp('2024-02-01 09:30:00.123456+00')).toBe(Date.UTC(2024, 1, 1, 9, 30, 0, 123));
    expect(pgTimestamp('2024-02-01T09:30:00+05:30')).toBe(Date.UTC(2024, 1, 1, 4, 0, 0));
    expect(pgTimestamp('2024-02-01 09:30:00+0530')).toBe(Date.UTC(2024, 1, 1, 4, 0, 0));
    expect(pgTimestamp('infinity')).toBe(Infinity);
    expect(pgTimestamp('yesterday')).toBeNaN();
  });

  it('streams a large auth.users export in bounded memory (32 MB of heap for a 55 MB file)', async () => {
    const users = join(tmp.dir, 'big-users.csv');
    const factors = join(tmp.dir, 'big-factors.csv');
    await writeSupabaseExport(users, 200_000, factors);
    const script = `
      const { readSourceBatches } = await import(${JSON.stringify(new URL('../../dist/sources/index.js', import.meta.url).href)});
      let n = 0, totp = 0, problems = 0;
      for await (const batch of readSourceBatches(process.argv.slice(1))) for (const it of batch) {
        if (it.kind === 'record') { n++; totp += it.value.record.totp?.length ?? 0; } else problems++;
      }
      console.log(JSON.stringify({ n, totp, problems }));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=32', '--input-type=module', '-e', script, users, factors],
      {
        maxBuffer: 1 << 20,
      },
    );
    expect(JSON.parse(stdout)).toEqual({ n: 200_000, totp: 20_000, problems: 0 });
  }, 120_000);
});
