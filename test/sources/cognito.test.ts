// The Cognito reader (`aws cognito-idp list-users` JSON): detection, every attribute's mapping (sub, email and
// phone with their verified flags, identities, profile and custom attributes, dates, Enabled, UserStatus,
// MFAOptions), native users without a hash, broken users, and a large file read in bounded memory.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCognitoExport } from '../../tools/generators/bulk-sources.js';
import { sniffFormat } from '../../src/sources/detect.js';
import { detectFormat, FieldReport } from '../../src/sources/index.js';
import { expectBoundedRead } from './bounded.js';
import { collect, fixture, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

describe('detection', () => {
  it('knows list-users output, a JSON array of users and NDJSON', async () => {
    expect(await detectFormat(fixture('cognito/list-users.json'))).toBe('cognito');
    expect(await detectFormat(fixture('cognito/native-users.json'))).toBe('cognito');
    expect(sniffFormat('[{"Username": "u", "Attributes": []}]', 'x.json')).toBe('cognito');
    expect(sniffFormat('{"Username":"u","UserStatus":"CONFIRMED"}\n', 'x.ndjson')).toBe('cognito');
    // Auth0 and canonical files are not taken for Cognito.
    expect(sniffFormat('{"user_id": "auth0|1", "identities": []}', 'x')).toBe('auth0');
    expect(sniffFormat('[{"id": "u1", "email": "a@b.co"}]', 'x')).toBe('canonical');
  });
});

describe('mapping', () => {
  it('maps federated users: identities, attributes, dates, Enabled', async () => {
    const fields = new FieldReport();
    const { records, all } = await collect([fixture('cognito/list-users.json')], { fields });
    expect(all).toEqual([]);
    const [ann, ben, cy, dee] = records.map((r) => r.record);
    expect(ann).toEqual({
      id: ann!.id,
      email: 'ann@cognito.example',
      emailVerified: true,
      thirdParty: [{ providerId: 'google', userId: '108000000000000000401', email: 'ann@cognito.example', emailVerified: true }],
      metadata: {
        name: 'Ann Cognito',
        given_name: 'Ann',
        locale: 'en-GB',
        'custom:plan': 'pro',
        'cognito:username': 'Google_108000000000000000401',
      },
      timeJoined: Date.parse('2024-03-01T09:30:00.123Z'),
    });
    expect(ann!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    expect(ben).toMatchObject({ emailVerified: false, timeJoined: 1709371800500, metadata: { picture: 'https://example.com/ben.png' } });
    expect(ben!.thirdParty![0]).toMatchObject({ providerId: 'facebook', userId: '10200000000000401', emailVerified: false });
    expect(cy!.thirdParty![0]!.providerId).toBe('apple');
    expect(dee!.disabled).toBe(true);
    for (const r of [ann, ben, cy, dee]) expect(r!.legacyPassword).toBeUndefined();
    const s = fields.summary();
    expect(s.mapped.map((e) => `${e.field}>${e.to}`)).toEqual([
      'Attributes.custom:*>metadata["custom:..."]',
      'Attributes.email>email',
      'Attributes.email_verified>emailVerified',
      'Attributes.given_name>metadata.given_name',
      'Attributes.identities>thirdParty[]',
      'Attributes.locale>metadata.locale',
      'Attributes.name>metadata.name',
      'Attributes.picture>metadata.picture',
      'Attributes.sub>id',
      'Enabled>disabled',
      'UserCreateDate>timeJoined',
      'Username>metadata["cognito:username"]',
      'UserStatus>no password (EXTERNAL_PROVIDER)',
    ]);
    expect(s.dropped).toEqual([
      { format: 'cognito', field: 'UserLastModifiedDate', reason: 'the core keeps no last-modified time', records: 4 },
    ]);
  });

  it('gives native users a legacyPassword without a hash; verified phones sign in, SMS MFA becomes a factor', async () => {
    const fields = new FieldReport();
    const { records, all } = await collect([fixture('cognito/native-users.json')], { fields });
    const [eve, fay, gus, hal] = records.map((r) => r.record);
    expect(eve!.legacyPassword).toEqual({ algorithm: 'aws_cognito', hash: '', params: { userStatus: 'CONFIRMED', username: 'eve' } });
    expect(eve!.metadata).toEqual({ family_name: 'Native', 'cognito:username': 'eve' });
    expect(fay).toMatchObject({ emailVerified: false, legacyPassword: { params: { userStatus: 'FORCE_CHANGE_PASSWORD' } } });
    expect(fay!.metadata).toBeUndefined(); // the Username is the sub: nothing to keep
    expect(gus).toMatchObject({ phoneNumber: '+14155550401', otpFactors: { phoneNumber: '+14155550401' } });
    expect(hal!.phoneNumber).toBeUndefined();
    expect(hal!.thirdParty).toEqual([{ providerId: 'Okta', userId: '00u1abcd0402', email: 'hal@cognito.example', emailVerified: true }]);
    // A native user with only a verified phone: phone sign-in, no legacy password (the core's passwords need an email).
    const ivy = records[4]!.record;
    expect(ivy).toMatchObject({ phoneNumber: '+14155550403' });
    expect(ivy.legacyPassword).toBeUndefined();
    // A Google login linked to a native user (AdminLinkProviderForUser) is listed twice by Cognito: one user with both.
    const jo = records[5]!.record;
    expect(jo).toMatchObject({ email: 'jo@cognito.example', legacyPassword: { algorithm: 'aws_cognito' } });
    expect(jo.thirdParty).toEqual([
      { providerId: 'google', userId: '108000000000000000404', email: 'jo@cognito.example', emailVerified: true },
    ]);
    expect(records).toHaveLength(6);
    expect(records.filter((r) => r.record.thirdParty?.some((t) => t.userId === '108000000000000000404'))).toHaveLength(1);
    expect(all.map((p) => p.rule)).toEqual(['cognito.linked-login', 'source.provider-unmapped', 'cognito.phone-only']);
    expect(fields.summary().dropped.map((e) => e.field)).toEqual([
      'Attributes.phone_number (unverified)',
      'EXTERNAL_PROVIDER user linked to a native user',
      'UserLastModifiedDate',
      'UserStatus (native user without an email)',
    ]);
    // An operator's provider map names the OIDC provider.
    const mapped = await collect([fixture('cognito/native-users.json')], { providerMap: { Okta: 'okta' } });
    expect(mapped.records[3]!.record.thirdParty![0]!.providerId).toBe('okta');
    expect(mapped.all.map((p) => p.rule)).toEqual(['cognito.linked-login', 'cognito.phone-only']);
  });

  it('merges a linked login listed on another page (file) as well', async () => {
    const all = JSON.parse(await readFile(fixture('cognito/native-users.json'), 'utf8')) as { Users: unknown[] };
    const idp = all.Users.at(-1)!;
    const pageOne = await tmp.file('page-1.json', JSON.stringify({ Users: [idp] }));
    const pageTwo = await tmp.file('page-2.json', JSON.stringify({ Users: all.Users.slice(0, -1) }));
    const { records, problems } = await collect([pageOne, pageTwo]);
    expect(records).toHaveLength(6);
    expect(problems.map((p) => [p.origin.file, p.rule])).toEqual([[pageOne, 'cognito.linked-login']]);
    // Without the native user, the IdP user is a user of its own.
    const alone = await collect([pageOne]);
    expect(alone.records.map((r) => r.record.thirdParty?.[0]?.userId)).toEqual(['108000000000000000404']);
  });

  it("names keys list-users does not have (admin-get-user's MFA settings) as dropped", async () => {
    const user = {
      Username: 'u',
      Attributes: [{ Name: 'sub', Value: 's1' }],
      UserStatus: 'CONFIRMED',
      UserMFASettingList: ['SOFTWARE_TOKEN_MFA'],
    };
    const path = await tmp.file('one.json', JSON.stringify({ Users: [user] }));
    const fields = new FieldReport();
    await collect([path], { fields });
    expect(fields.summary().dropped.map((e) => e.field)).toEqual(['UserMFASettingList']);
  });

  it('names the record and field of every broken user', async () => {
    const { all } = await collect([fixture('broken/cognito-bad.json')]);
    expect(all.map((p) => `${p.severity} ${p.origin.index} ${p.sourceId ? 'id' : '-'} ${p.field ?? ''} ${p.rule}`)).toEqual([
      'error 1 - Attributes.sub source.required',
      'error 3 -  source.type',
      'warning 2 id Attributes[2] source.type',
      'error 2 id Attributes.identities source.json-field',
      'warning 2 id UserCreateDate source.type',
    ]);
  });
});

describe('a large export', () => {
  it('streams 100,000 users in bounded memory', async () => {
    const path = `${tmp.dir}/big-cognito.json`;
    await writeCognitoExport(path, 100_000);
    await expectBoundedRead(path, {}, 100_000);
  }, 120_000);
});
