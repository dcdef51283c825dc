// Users whose password hash the core cannot take (issue 10, done-when 2): md5, pbkdf2, Firebase HMAC and Django
// bcrypt_sha256 records. By default they are left out and listed; with --unusable-hashes without-password the rest
// of each user (social login, phone, TOTP, metadata, external id) is imported and the sign-in migration file names
// the core's user id beside the legacy hash. The file is 0600, a rerun imports nothing twice and keeps it whole.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const MD5 = '5f4dcc3b5aa765d61d8327deb882cf99';
const PBKDF2 = 'pbkdf2_sha256$260000$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA==';
const TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-unusable-'));
  const users = [
    {
      id: 'u-md5',
      email: 'md5@example.test',
      externalUserId: 'ext-md5',
      password: { hash: MD5 },
      thirdParty: [{ providerId: 'google', userId: 'g-md5' }],
      totp: [{ secret: TOTP, deviceName: 'phone' }],
      metadata: { plan: 'pro' },
    },
    { id: 'u-pbkdf2', email: 'pbkdf2@example.test', password: { hash: PBKDF2 }, phoneNumber: '+14155550777' },
    {
      id: 'u-django',
      email: 'django@example.test',
      password: { hash: `bcrypt_sha256$${BCRYPT}` },
      thirdParty: [{ providerId: 'github', userId: 'gh-1' }],
    },
    { id: 'u-only', email: 'only@example.test', password: { hash: MD5 } },
    { id: 'u-ok', email: 'ok@example.test', password: { hash: BCRYPT } },
  ];
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
  // A Firebase project whose hash config is HMAC_SHA256 (users imported into it with an HMAC key).
  const fb = {
    users: [
      {
        localId: 'fb-hmac',
        email: 'hmac@example.test',
        emailVerified: true,
        passwordHash: 'aGFzaGhhc2g=',
        salt: 'c2FsdA==',
        providerUserInfo: [{ providerId: 'google.com', rawId: 'g-hmac', email: 'hmac@example.test' }],
      },
    ],
  };
  writeFileSync(join(dir, 'firebase.json'), JSON.stringify(fb));
  writeFileSync(join(dir, 'hmac.txt'), 'hash_config {\n  algorithm: HMAC_SHA256,\n  base64_signer_key: a2V5LWtleS1rZXk=,\n}\n');
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (path: string) =>
  readFileSync(join(dir, path), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const bySource = (path: string) => new Map(lines(path).map((l) => [l['sourceId'] as string, l]));

describe('--unusable-hashes', () => {
  it('validate explains, per algorithm, and names the option; no hash is printed', async () => {
    const v = await cli(['validate', 'users.ndjson'], dir);
    expect(v.exitCode).toBe(1);
    expect(v.stdout).toContain('hash the core cannot take: 4 users (django_bcrypt_sha256 1, django_pbkdf2 1, md5 2)');
    expect(v.stdout).toContain('--unusable-hashes without-password');
    for (const h of [MD5, BCRYPT, 'aGFzaGhhc2hoYXNo']) expect(v.stdout).not.toContain(h);
    const w = await cli(['validate', 'users.ndjson', '--unusable-hashes', 'without-password', '--json'], dir);
    expect(w.exitCode).toBe(0);
    expect(JSON.parse(w.stdout).summary.unusableHashes).toEqual({
      policy: 'without-password',
      users: 4,
      byAlgorithm: { md5: 2, django_pbkdf2: 1, django_bcrypt_sha256: 1 },
    });
  });

  it('skip: such users are left out, and the sign-in migration file lists them with nothing created', async () => {
    // Chosen: without --unusable-hashes the run is refused (test/e2e/run-unusable-refused.test.ts).
    const r = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--unusable-hashes', 'skip', '--journal', 'skip.ndjson', '--json'],
      dir,
      env,
    );
    expect(r.exitCode).toBe(1);
    expect(summaryOf(r.stdout)).toMatchObject({ imported: 1, skipped: 4 });
    const file = bySource('skip.signin-migration.ndjson');
    // run says where the file is, with the other files of the run.
    expect(r.stderr).toContain(`sign-in migration ${join(dir, 'skip.signin-migration.ndjson')}: `);
    expect([...file.keys()].sort()).toEqual(['u-django', 'u-md5', 'u-only', 'u-pbkdf2']);
    expect(file.get('u-md5')).toEqual({
      sourceId: 'u-md5',
      email: 'md5@example.test',
      outcome: 'skipped',
      reason: 'password.unusable',
      algorithm: 'md5',
      hash: MD5,
    });
    expect(statSync(join(dir, 'skip.signin-migration.ndjson')).mode & 0o777).toBe(0o600);
    expect((await allUsers(client(sandbox.url))).flatMap((u) => u.emails)).toEqual(['ok@example.test']);
  });

  it('without-password: everything else of those users is imported; the file names each core user id', async () => {
    const args = [
      'run',
      'users.ndjson',
      '--core',
      sandbox.url,
      '--yes',
      '--journal',
      'wp.ndjson',
      '--unusable-hashes',
      'without-password',
      '--json',
    ];
    const r = await cli(args, dir, env);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1); // u-only: nothing to create, reported as skipped
    expect(summaryOf(r.stdout)).toMatchObject({ imported: 3, alreadyPresent: 1, skipped: 1, failed: 0 });
    const core = client(sandbox.url);
    // The md5 user: Google login, external id, TOTP device and metadata, but no email-password login method.
    const md5 = (await core.getUserById('ext-md5')) as { user: { loginMethods: Array<{ recipeId: string }> } };
    expect(md5.user.loginMethods.map((m) => m.recipeId)).toEqual(['thirdparty']);
    expect((await core.getUserMetadata('ext-md5')).metadata).toEqual({ plan: 'pro' });
    expect((await core.listTotpDevices('ext-md5')).devices.map((d) => d.name)).toEqual(['phone']);
    const file = bySource('wp.signin-migration.ndjson');
    expect(file.get('u-md5')).toEqual({
      sourceId: 'u-md5',
      email: 'md5@example.test',
      userId: 'ext-md5',
      outcome: 'imported',
      algorithm: 'md5',
      hash: MD5,
    });
    expect(file.get('u-pbkdf2')).toMatchObject({
      outcome: 'imported',
      algorithm: 'django_pbkdf2',
      salt: 'c2FsdHNhbHQ',
      params: { digest: 'sha256', iterations: 260000 },
      userId: (await core.listUsersByAccountInfo({ phoneNumber: '+14155550777' })).users[0]!.id,
    });
    expect(file.get('u-django')).toMatchObject({ outcome: 'imported', algorithm: 'django_bcrypt_sha256', hash: BCRYPT });
    expect(file.get('u-only')).toEqual({
      sourceId: 'u-only',
      email: 'only@example.test',
      outcome: 'skipped',
      reason: 'SIGN_IN_MIGRATION',
      algorithm: 'md5',
      hash: MD5,
    });
    expect(r.stdout + r.stderr).not.toContain(MD5);

    // The same command again: nothing imported twice, and the file is whole again (ids from the journal).
    const again = await cli(args, dir, env);
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, failed: 0 });
    const ids = (m: Map<string, Record<string, unknown>>) => [...m].map(([k, l]) => [k, l['userId'], l['hash']]).sort();
    expect(ids(bySource('wp.signin-migration.ndjson'))).toEqual(ids(file));
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--unusable-hashes', 'without-password', '--json'], dir, env);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: 4, missing: 0, mismatch: 0, skipped: 1 });
    core.close();
  });

  it('a Firebase HMAC hash config no longer refuses the file: the user arrives through Google, its hash is listed', async () => {
    const args = ['run', 'firebase.json', '--hash-config', 'hmac.txt', '--core', sandbox.url, '--yes', '--journal', 'fb.ndjson'];
    const skip = await cli([...args, '--unusable-hashes', 'skip', '--json'], dir, env);
    expect(summaryOf(skip.stdout)).toMatchObject({ skipped: 1 });
    const r = await cli([...args, '--journal', 'fb2.ndjson', '--unusable-hashes', 'without-password', '--json'], dir, env);
    expect(r.exitCode, r.stderr).toBe(0);
    const line = bySource('fb2.signin-migration.ndjson').get('fb-hmac')!;
    expect(line).toMatchObject({ outcome: 'imported', algorithm: 'firebase_hmac_sha256', hash: 'aGFzaGhhc2g=', salt: 'c2FsdA==' });
    expect(JSON.stringify(line)).not.toContain('a2V5LWtleS1rZXk');
    const core = client(sandbox.url);
    const user = (await core.getUserById(line['userId'] as string)) as { user: { loginMethods: Array<{ recipeId: string }> } };
    expect(user.user.loginMethods.map((m) => m.recipeId)).toEqual(['thirdparty']);
    core.close();
  });
});
