// `auth-migrate validate` end to end through main(): exit codes, summary, problems, --json, spot-checks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { ARGON2, BCRYPT, SCRYPT, SCRYPT_SALT, SCRYPT_USER1_HASH, SIGNER_KEY, TOTP_SECRET } from '../support/vectors.js';

let dir: string;
const path = (name: string) => join(dir, name);

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(['validate', ...args], { stdout, stderr, env: { AUTH_MIGRATE_CONFIG_DIR: path('config'), ...env } });
  return { code, stdout: out, stderr: err };
}

const GOOD = [
  { id: 'u1', email: 'Ann@Example.com', password: { hash: BCRYPT }, totp: [{ secret: TOTP_SECRET }] },
  { id: 'u2', email: 'bob@example.com', password: { hash: ARGON2 }, otpFactors: { email: 'bob@example.com' } },
  { id: 'u3', email: 'cy@example.com', password: { hash: SCRYPT }, thirdParty: [{ providerId: 'google', userId: 'g3' }] },
  {
    id: 'u4',
    email: 'dee@example.com',
    thirdParty: [
      { providerId: 'google', userId: 'g4' },
      { providerId: 'github', userId: '44' },
    ],
  },
  { id: 'u5', phoneNumber: '+1 415 555 0105', otpFactors: { phoneNumber: '+14155550199' } },
];

// Line 2: unknown hash format; line 3: duplicate email with u1 (so u1 becomes invalid too); line 4: bad TOTP secret.
const MIXED = [
  { id: 'm1', email: 'ann@example.com', password: { hash: BCRYPT } },
  { id: 'm2', email: 'md5@example.com', password: { hash: 'md5$0123456789abcdef' } },
  { id: 'm3', email: 'ANN@example.com', password: { hash: ARGON2 } },
  { id: 'm4', email: 'tim@example.com', password: { hash: BCRYPT }, totp: [{ secret: 'NOT-BASE32-1!', encoding: 'base32' }] },
  { id: 'm5', email: 'ok@example.com', password: { hash: BCRYPT } },
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'validate-cmd-'));
  writeFileSync(path('good.json'), JSON.stringify(GOOD, null, 2));
  writeFileSync(path('mixed.ndjson'), MIXED.map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(
    path('hash-config.txt'),
    `hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: ${SIGNER_KEY},\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}\n`,
  );
  writeFileSync(
    path('firebase.json'),
    JSON.stringify({
      users: [{ localId: 'fb1', email: 'fb@example.com', passwordHash: SCRYPT_USER1_HASH, salt: SCRYPT_SALT, createdAt: '1700000000000' }],
    }),
  );
  writeFileSync(path('empty.json'), '');
  const colonHash = bcrypt.hashSync('pass:word', 4);
  writeFileSync(
    path('colon.json'),
    JSON.stringify([
      { id: 'c1', email: 'colon@example.com', password: { hash: colonHash } },
      { id: 's1', email: 'shared@example.com', thirdParty: [{ providerId: 'google', userId: 'gs' }] },
      { id: 's2', email: 'shared@example.com', password: { hash: colonHash } },
    ]),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('auth-migrate validate', () => {
  it('exits 0 on a valid set and prints the summary counts', async () => {
    const { code, stdout, stderr } = await run([path('good.json'), '--signer-key', SIGNER_KEY]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Validated 5 records from 1 file: 5 valid, 0 invalid');
    expect(stdout).toContain('email-password users: 3 (bcrypt 1, argon2 1, external scrypt 1)');
    expect(stdout).toContain('third-party users:    github 1, google 2');
    expect(stdout).toContain('phone sign-in users:  1');
    expect(stdout).toContain('TOTP devices:         1');
    expect(stdout).toContain('email factors:        1');
    expect(stdout).toContain('SMS factors:          1');
    // The one warning: the set-level non-ASCII risk of the scrypt variant.
    expect(stdout).toContain('errors: 0, warnings: 1');
    expect(stdout).toMatch(/warning: .*good\.json\[2\] \(id u3\) password\.hash: 1 user\(s\) have external scrypt hashes/);
  });

  it('counts lines that are not users in the summary line, so an exit code of 1 over valid records is explained', async () => {
    const good = JSON.stringify({ id: 'g1', email: 'g1@example.com', password: { hash: BCRYPT } });
    writeFileSync(
      path('torn.ndjson'),
      `${good}\n{"id": "broken\nnot json at all\n${JSON.stringify({ id: 'g2', email: 'g2@example.com', password: { hash: BCRYPT } })}\n`,
    );
    const { code, stdout } = await run([path('torn.ndjson')]);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^Validated 2 records from 1 file: 2 valid, 0 invalid; 2 items of the files could not be read as users \(listed below\)$/m,
    );
    const json = await run([path('torn.ndjson'), '--json']);
    expect(JSON.parse(json.stdout).summary).toMatchObject({ valid: 2, unreadable: 2 });
  });

  it('exits 1 when some records are invalid, names each problem, and counts late ones', async () => {
    const { code, stdout } = await run([path('mixed.ndjson')]);
    expect(code).toBe(1);
    expect(stdout).toContain('Validated 5 records from 1 file: 1 valid, 4 invalid');
    expect(stdout).toContain('errors: 4, warnings: 0');
    expect(stdout).toMatch(/error: \S*mixed\.ndjson:2 \(id m2\) password\.hash: the hash is not/);
    expect(stdout).toMatch(
      /error: \S*mixed\.ndjson:3 \(id m3\) email: the email \(of a user with a password\) is also used by \S*mixed\.ndjson:1 \(id m1\)/,
    );
    expect(stdout).toMatch(/error: \S*mixed\.ndjson:4 \(id m4\) totp\[0\]\.secret: /);
    expect(stdout).toMatch(/error: \S*mixed\.ndjson:1 \(id m1\) email: .* also used by \S*mixed\.ndjson:3 \(id m3\)/);
  });

  it('never prints a hash, a secret, a password or the signer key', async () => {
    const runs = [
      await run([path('mixed.ndjson'), '--check-password', 'ann@example.com:U*U-secret-pw']),
      await run([
        path('good.json'),
        '--json',
        '--signer-key',
        SIGNER_KEY,
        '--check-password',
        'cy@example.com:user1password',
        '--check-password',
        'u1:wrong-pw-xyz',
      ]),
      await run([path('good.json'), '--signer-key', 'not base64!!', '--check-password', 'u1:pw']),
    ];
    for (const { stdout, stderr } of runs) {
      for (const s of [
        BCRYPT,
        ARGON2,
        SCRYPT_USER1_HASH,
        SIGNER_KEY,
        TOTP_SECRET,
        'NOT-BASE32-1!',
        'md5$0123456789abcdef',
        'U*U-secret-pw',
        'user1password',
        'wrong-pw-xyz',
        'not base64!!',
      ]) {
        expect(stdout + stderr).not.toContain(s);
      }
    }
  });

  it('--json prints one document with summary, problems, problemsOmitted and spotChecks', async () => {
    const { code, stdout } = await run([path('mixed.ndjson'), '--json', '--max-problems', '2', '--check-password', 'ok@example.com:U*U']);
    expect(code).toBe(1);
    const doc = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(doc).sort()).toEqual(['problems', 'problemsOmitted', 'spotChecks', 'summary']);
    expect(doc.summary).toMatchObject({
      records: 5,
      valid: 1,
      invalid: 4,
      errors: 4,
      warnings: 0,
      passwordUsers: { bcrypt: 3, argon2: 1, external_scrypt: 0 },
    });
    expect((doc.problems as unknown[]).length).toBe(2);
    expect(doc.problemsOmitted).toBe(2);
    expect(doc.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        rule: 'password.format.unknown',
        sourceId: 'm2',
        origin: { file: path('mixed.ndjson'), line: 2 },
      }),
    );
    expect(doc.spotChecks).toEqual([{ user: 'ok@example.com', result: 'match', detail: expect.any(String) }]);
  });

  describe('password spot-checks', () => {
    it.each([
      ['bcrypt by email (any case)', 'ANN@example.com:U*U'],
      ['argon2 by id', 'u2:password'],
      ['external scrypt with the signer key', 'cy@example.com:user1password'],
      ['a password with a colon in it is split at the first colon', 'colon@example.com:pass:word'],
      ['the password user among users sharing an email', 'shared@example.com:pass:word'],
    ])('%s: match, exit 0', async (_name, check) => {
      const files = /^(colon|shared)/.test(check) ? [path('colon.json')] : [path('good.json')];
      const { code, stdout } = await run([...files, '--signer-key', SIGNER_KEY, '--check-password', check, '--json']);
      const doc = JSON.parse(stdout) as { spotChecks: Array<{ result: string }> };
      expect(doc.spotChecks.map((s) => s.result)).toEqual(['match']);
      expect(code).toBe(0);
    });

    it('the signer key can come from the environment or the hash config, and --signer-key overrides both', async () => {
      const fromEnv = await run([path('good.json'), '--check-password', 'u3:user1password'], { AUTH_MIGRATE_SIGNER_KEY: SIGNER_KEY });
      expect(fromEnv.code).toBe(0);
      const fromConfig = await run([path('good.json'), '--hash-config', path('hash-config.txt'), '--check-password', 'u3:user1password']);
      expect(fromConfig.code).toBe(0);
      const wrongFlag = await run([
        path('good.json'),
        '--hash-config',
        path('hash-config.txt'),
        '--signer-key',
        Buffer.alloc(64, 1).toString('base64'),
        '--check-password',
        'u3:user1password',
      ]);
      expect(wrongFlag.code).toBe(1);
      expect(wrongFlag.stdout).toMatch(/u3: FAILED \(wrong-password\): wrong password, or the signer key/);
    });

    it('tells wrong password, missing signer key, cannot verify, no password and not found apart (exit 1)', async () => {
      writeFileSync(
        path('odd.json'),
        JSON.stringify([{ id: 'v16', email: 'v16@example.com', password: { hash: ARGON2.replace('v=19', 'v=16') } }]),
      );
      const a = await run([
        path('good.json'),
        '--json',
        ...['u1:nope', 'u3:user1password', 'u4:x', 'nobody@example.com:x'].flatMap((c) => ['--check-password', c]),
      ]);
      expect(a.code).toBe(1);
      const results = (JSON.parse(a.stdout) as { spotChecks: Array<{ user: string; result: string }> }).spotChecks;
      expect(results.map((r) => [r.user, r.result])).toEqual([
        ['u1', 'wrong-password'],
        ['u3', 'missing-signer-key'],
        ['u4', 'no-password'],
        ['nobody@example.com', 'not-found'],
      ]);
      const b = await run([path('odd.json'), '--check-password', 'v16@example.com:password']);
      expect(b.code).toBe(1);
      expect(b.stdout).toContain('v16@example.com: FAILED (cannot-verify): cannot verify this format');
    });

    it('verifies a Firebase export with its hash config (the public scrypt vector)', async () => {
      const { code, stdout } = await run([
        path('firebase.json'),
        '--hash-config',
        path('hash-config.txt'),
        '--check-password',
        'fb@example.com:user1password',
      ]);
      expect(stdout).toContain('email-password users: 1 (bcrypt 0, argon2 0, external scrypt 1)');
      expect(stdout).toContain('fb@example.com: ok: the password matches the external_scrypt hash');
      expect(code).toBe(0);
    });
  });

  describe('exit 2', () => {
    it.each([
      ['a missing file', [join(tmpdir(), 'no-such-dir-am', 'users.json')], /cannot|no such|not found|ENOENT/i],
      ['an empty file', ['EMPTY'], /empty/],
      ['no file', [], /give at least one export file/],
      ['an unknown option', ['GOOD', '--frobnicate'], /frobnicate/],
      ['a bad --format', ['GOOD', '--format', 'csv'], /--format must be one of/],
      ['a bad --check-password', ['GOOD', '--check-password', 'nocolon'], /EMAIL:PASSWORD/],
      ['a signer key that is not base64', ['GOOD', '--signer-key', '%%%'], /signer key from --signer-key is not base64/],
      ['a missing --hash-config file', ['GOOD', '--hash-config', '/nonexistent/hash.txt'], /--hash-config/],
      ['an unknown profile', ['GOOD', '--profile', 'nope'], /no profile named 'nope'/],
    ])('%s', async (_name, args, message) => {
      const argv = (args as string[]).map((a) => (a === 'GOOD' ? path('good.json') : a === 'EMPTY' ? path('empty.json') : a));
      const { code, stdout, stderr } = await run(argv);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(message);
      expect(stderr).not.toMatch(/\n\s+at /);
    });
  });

  it('takes the files, settings and signer key of a --profile', async () => {
    const env = { AUTH_MIGRATE_CONFIG_DIR: path('config'), PROFILE_SIGNER: SIGNER_KEY };
    const profile = {
      ...emptyProfile('fb'),
      sources: [{ path: path('firebase.json'), format: 'firebase' }],
      hashConfig: { saltSeparator: 'Bw==', rounds: 8, memCost: 14 },
    };
    profile.secrets.signerKey = { store: 'env', name: 'PROFILE_SIGNER' };
    await saveProfile(profile, {}, env);
    const { code, stdout } = await run(['--profile', 'fb', '--check-password', 'fb@example.com:user1password'], env);
    expect(stdout).toContain('Validated 1 record from 1 file: 1 valid, 0 invalid');
    expect(stdout).toContain('fb@example.com: ok');
    expect(code).toBe(0);
  });

  it('prints its help, naming every format it reads', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--check-password EMAIL:PASSWORD');
    const intro = stdout.split('\n').slice(2, 4).join(' ');
    for (const name of ['canonical', 'Firebase JSON and CSV', 'Auth0', 'Clerk', 'Supabase', 'Keycloak', 'Cognito', 'TOTP'])
      expect(intro).toContain(name);
  });

  it('names a class of users one missing setting or file drops, with the fix, in text and in --json (exit 1)', async () => {
    const fixtures = join(__dirname, '../../fixtures');
    // Firebase CSV without its hash config: every password user, as one finding (not only "3 invalid").
    const fb = await run([join(fixtures, 'firebase/export.csv'), '--json']);
    expect(fb.code).toBe(1);
    const fbDoc = JSON.parse(fb.stdout) as { summary: { droppedClasses: Array<Record<string, unknown>> } };
    expect(fbDoc.summary.droppedClasses).toEqual([
      expect.objectContaining({ rule: 'hash-config.missing', users: 3, fix: expect.stringContaining('--hash-config FILE') }),
    ]);
    // Supabase's users table alone: the identities (two users' logins) and the factors (who has them: unknown).
    const sb = await run([join(fixtures, 'supabase/users.csv')]);
    expect(sb.code).toBe(1);
    expect(sb.stdout).toMatch(/would drop \(run refuses to start until it is given, or --allow-partial\):/);
    expect(sb.stdout).toMatch(/2 users would lose their social and SSO logins .*give \S*supabase\/identities\.csv/);
    expect(sb.stdout).toMatch(/Users would lose their TOTP devices .*give \S*supabase\/mfa_factors\.csv/);
    const sbJson = JSON.parse((await run([join(fixtures, 'supabase/users.csv'), '--json'])).stdout) as {
      summary: { droppedClasses: Array<{ rule: string; users?: number; expectedFile: string }> };
    };
    expect(sbJson.summary.droppedClasses.map((d) => [d.rule, d.users, d.expectedFile])).toEqual([
      ['companion.missing', 2, join(fixtures, 'supabase/identities.csv')],
      ['companion.missing', undefined, join(fixtures, 'supabase/mfa_factors.csv')],
    ]);
    // An Auth0 user export without the password-hash export: the database users' passwords.
    const a0 = JSON.parse((await run([join(fixtures, 'auth0/users.ndjson.gz'), '--json'])).stdout) as typeof fbDoc;
    expect(a0.summary.droppedClasses).toEqual([expect.objectContaining({ rule: 'companion.missing', users: 2 })]);
    // Given everything, nothing is dropped.
    const whole = await run([
      ...['users', 'identities', 'mfa_factors'].map((t) => join(fixtures, `supabase/${t}.csv`)),
      '--hash-config',
      join(fixtures, 'firebase/hash-config.txt'),
      '--json',
    ]);
    expect((JSON.parse(whole.stdout) as { summary: Record<string, unknown> }).summary.droppedClasses).toBeUndefined();
  });

  it('prints counts with thousands separators', async () => {
    const many = Array.from({ length: 1200 }, (_, i) =>
      JSON.stringify({ id: `n${i}`, phoneNumber: `+1415555${String(i).padStart(4, '0')}` }),
    );
    writeFileSync(path('many.ndjson'), many.join('\n') + '\n');
    const { code, stdout } = await run([path('many.ndjson')]);
    expect(code).toBe(0);
    expect(stdout).toContain('Validated 1,200 records from 1 file: 1,200 valid, 0 invalid');
    expect(stdout).toContain('phone sign-in users:  1,200');
  });
});
