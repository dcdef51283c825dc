import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { splitUserId, sniffAuth0Kind } from '../../src/sources/auth0.js';
import { byId, collect, fixture, readUntilError, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('Auth0 readers', () => {
  it('joins the password-hash export with the gzip user export by user id', async () => {
    const { records, all } = await collect([fixture('auth0/passwords.ndjson'), fixture('auth0/users.ndjson.gz')]);
    expect(all).toEqual([]);
    const users = byId(records);
    expect(users.size).toBe(5);
    const gus = [...users.values()].find((r) => r.record.email === 'gus@example.com')!;
    expect(gus.record.id).toMatch(/^auth0\|[0-9a-f]{24}$/);
    expect(gus.record.password?.hash).toMatch(/^\$2b\$06\$/);
    expect(gus.record.thirdParty).toBeUndefined();
    expect(gus.record.timeJoined).toBe(Date.UTC(2021, 3, 1));
    // alt_id wins over _id, and the email comes from identifiers[] when the root has none.
    expect(users.get('auth0|euclid')!.record).toMatchObject({
      email: 'hal@example.com',
      emailVerified: false,
      password: { hash: expect.stringMatching(/^\$2b\$/) },
    });
    expect(users.get('google-oauth2|103500000000000000301')!.record.thirdParty).toEqual([
      { providerId: 'google', userId: '103500000000000000301', email: 'ivy@example.com', emailVerified: true },
    ]);
    // No identities[]: the provider is split from user_id on the first `|` only.
    expect(users.get('windowslive|ab12|jay@contoso.example')!.record.thirdParty).toEqual([
      { providerId: 'microsoft', userId: 'ab12|jay@contoso.example', email: 'jay@example.com', emailVerified: true },
    ]);
    expect(users.get('sms|64a0000000000000000301')!.record).toMatchObject({ phoneNumber: '+14155550301' });
  });

  it('gives the same password records from NDJSON with _id and a JSON array with _ID', async () => {
    const nd = await collect([fixture('auth0/passwords.ndjson')]);
    const array = await collect([fixture('auth0/passwords-array.json')]);
    expect(nd.all).toEqual([]);
    expect(array.records.map((r) => r.record)).toEqual(nd.records.map((r) => r.record));
    expect(array.records.map((r) => r.origin.index)).toEqual([0, 1]);
  });

  it('keeps password records the user export does not mention, and user records without a password', async () => {
    const pw = await tmp.file(
      'pw.ndjson',
      [
        JSON.stringify({ _id: { $oid: 'aaa' }, email: 'a@example.com', passwordHash: '$2b$10$x' }),
        JSON.stringify({ _ID: 'bbb', email: 'b@example.com', passwordHash: '$2b$10$y' }),
      ].join('\n'),
    );
    const users = await tmp.file(
      'users.ndjson',
      JSON.stringify({ user_id: 'auth0|bbb', email: 'b@example.com', identities: [{ provider: 'auth0', user_id: 'bbb' }] }) +
        '\n' +
        JSON.stringify({ user_id: 'auth0|ccc', email: 'c@example.com' }),
    );
    const { records } = await collect([users, pw], { format: 'auth0' });
    expect(records.map((r) => [r.record.id, r.record.password?.hash ?? null])).toEqual([
      ['auth0|bbb', '$2b$10$y'],
      ['auth0|ccc', null],
      ['auth0|aaa', '$2b$10$x'],
    ]);
  });

  it('reports records without ids, unmapped providers and MFA it cannot export', async () => {
    const users = await tmp.file(
      'u.ndjson',
      [
        JSON.stringify({
          user_id: 'oauth2|custom|42',
          email: 'x@example.com',
          identities: [{ provider: 'oauth2', user_id: 'custom|42', isSocial: true }],
          multifactor: ['guardian'],
        }),
        JSON.stringify({ email: 'no-id@example.com' }),
        JSON.stringify({ user_id: 'email|1', email: 'pl@example.com', identities: [{ provider: 'email', user_id: '1' }] }),
        'not json',
      ].join('\r\n'),
    );
    const { records, problems } = await collect([users], { format: 'auth0' });
    expect(records[0]!.record.thirdParty).toEqual([{ providerId: 'oauth2', userId: 'custom|42', email: 'x@example.com' }]);
    expect(records[0]!.problems.map((p) => p.rule)).toEqual(['source.provider-unmapped', 'auth0.mfa-not-exported']);
    expect(records[1]!.problems.map((p) => p.rule)).toEqual(['auth0.passwordless-email']);
    expect(problems.map((p) => [p.origin.line, p.rule])).toEqual([
      [2, 'source.required'],
      [4, 'source.json'],
    ]);
  });

  it('refuses a .gz file that is not gzip, and reads a damaged gzip up to the damage', async () => {
    expect((await readUntilError([fixture('broken/not-gzip.ndjson.gz')])).error.message).toMatch(
      /not-gzip\.ndjson\.gz is named \.gz but is not gzip-compressed \(byte 0\)/,
    );
    const { error } = await readUntilError([fixture('broken/truncated.ndjson.gz')], { format: 'auth0' });
    expect(error.message).toMatch(
      /truncated\.ndjson\.gz: the gzip data is damaged or truncated \(after \d+ decompressed bytes, at compressed byte \d+\)/,
    );
  });

  it('reads gzip by its magic bytes whatever the name', async () => {
    const path = await tmp.file(
      'export.ndjson',
      gzipSync(Buffer.from(JSON.stringify({ user_id: 'github|7', email: 'g@example.com' }) + '\n')),
    );
    const { records } = await collect([path]);
    expect(records[0]!.record.thirdParty).toEqual([{ providerId: 'github', userId: '7', email: 'g@example.com' }]);
  });

  it('splits ids on the first | only and tells the two exports apart', () => {
    expect(splitUserId('office365|1003@MicrosoftOnline.com')).toEqual({ provider: 'office365', user_id: '1003@MicrosoftOnline.com' });
    expect(splitUserId('samlp|corp|a|b')).toEqual({ provider: 'samlp', user_id: 'corp|a|b' });
    expect(sniffAuth0Kind('{"user_id":"auth0|x","email":"a"}')).toBe('users');
    expect(sniffAuth0Kind('{"_id":{"$oid":"x"},"passwordHash":"$2b$"}')).toBe('passwords');
    expect(sniffAuth0Kind('[{"_ID":"x"}]')).toBe('passwords');
  });
});

describe('Auth0 profile fields and roles', () => {
  it('carries name, nickname, picture, user_metadata and app_metadata into metadata, and the roles', async () => {
    const { records, all } = await collect([fixture('auth0/passwords.ndjson'), fixture('auth0/users.ndjson.gz')]);
    expect(all).toEqual([]);
    const gus = records.find((r) => r.record.email === 'gus@example.com')!.record;
    expect(gus.metadata).toEqual({
      name: 'Gus Grant',
      nickname: 'gus',
      picture: 'https://example.com/avatars/gus.png',
      user_metadata: { theme: 'dark', locale: 'en-GB' },
      app_metadata: { plan: 'pro', authorization: { roles: ['editor'] } },
    });
    // The Authorization Extension keeps roles in app_metadata.authorization.roles.
    expect(gus.roles).toEqual(['editor']);
    // A Management API `roles` list: objects with a name, or names; each role once.
    const hal = byId(records).get('auth0|euclid')!.record;
    expect(hal.metadata).toEqual({ nickname: 'hal' });
    expect(hal.roles).toEqual(['admin', 'editor']);
  });

  it('names a roles field that is not a list of names', async () => {
    const path = await tmp.file(
      'roles.ndjson',
      `${JSON.stringify({ user_id: 'auth0|r1', email: 'r1@example.com', roles: 'admin' })}\n${JSON.stringify({ user_id: 'auth0|r2', email: 'r2@example.com', roles: [{ id: 'x' }, 'ok'] })}\n`,
    );
    const { records } = await collect([path], { format: 'auth0' });
    const r1 = byId(records).get('auth0|r1')!;
    expect(r1.record.roles).toBeUndefined();
    expect(r1.problems).toEqual([expect.objectContaining({ field: 'roles', severity: 'warning' })]);
    const r2 = byId(records).get('auth0|r2')!;
    expect(r2.record.roles).toEqual(['ok']);
    expect(r2.problems).toEqual([expect.objectContaining({ field: 'roles[0]' })]);
  });
});
