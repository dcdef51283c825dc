// The Cognito reader (`aws cognito-idp list-users` JSON): detection, every attribute's mapping (sub, email and
// phone with their verified flags, identities, profile and custom attributes, dates, Enabled, UserStatus,
// MFAOptions), native users without a hash, broken users, and a large file read in bounded memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCognitoExport } from '../../src/generators/bulk-sources.js';
import { sniffFormat } from '../../src/sources/detect.js';
import { detectFormat, FieldReport } from '../../src/sources/index.js';
import { expectBoundedRead } from './bounded.js';
import { collect, fixture, tempDir } from './helpers.js';

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
    expect(all.map((p) => p.rule)).toEqual(['source.provider-unmapped']);
    expect(fields.summary().dropped.map((e) => e.field)).toEqual(['Attributes.phone_number (unverified)', 'UserLastModifiedDate']);
    // An operator's provider map names the OIDC provider.
    const mapped = await collect([fixture('cognito/native-users.json')], { providerMap: { Okta: 'okta' } });
    expect(mapped.records[3]!.record.thirdParty![0]!.providerId).toBe('okta');
    expect(mapped.all).toEqual([]);
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
