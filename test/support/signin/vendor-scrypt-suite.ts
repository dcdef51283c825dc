// Issue 21's done-when "Supabase and Clerk samples with Firebase-scrypt digests import and sign in with their known
// passwords", run against a core: the sandbox (test/e2e/vendor-scrypt-signin.test.ts) and the core named by
// AUTH_MIGRATE_TEST_CORE_URL (test/core/vendor-scrypt.test.ts). A Supabase users.csv holds GoTrue's `$fbscrypt$`
// digests and a Clerk export `scrypt_firebase` ones (one in web-safe unpadded base64), beside a bcrypt user each;
// the digests are Firebase's own published sample (firebase/scrypt README: user1password and hunter2, shared/
// formats.md §1), so the core must hold that project's signer key (the reference core's configuration, as for every
// test/core file). The spot-check (`validate --check-password`) proves the conversion before anything is written:
// the converted hash matches the known password and not a wrong one; then `run` imports every user, each signs in
// with its known password at the core, a wrong password gets WRONG_CREDENTIALS_ERROR, and no user is left for
// migration at sign-in. Every email is under this run's own domain, so a shared core is fine.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../../src/core-client/client.js';
import { cli, summaryOf } from '../cli.js';
import { SCRYPT_HUNTER2_HASH, SCRYPT_SALT, SCRYPT_USER1_HASH, SIGNER_KEY } from '../vectors.js';

export interface VendorTarget {
  url: string;
  apiKey?: string;
  /** Environment of the CLI (keys). */
  env: Record<string, string>;
}

const webSafe = (b64: string): string => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const csvCell = (v: string): string => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

interface Known {
  email: string;
  password: string;
  algorithm: 'bcrypt' | 'external_scrypt';
}

/** Supabase auth.users (`\copy ... csv header`) and a Clerk dashboard export for this run's domain. */
function writeExports(dir: string, domain: string): { supabase: string[]; clerk: string; users: Known[] } {
  const bc = (pw: string) => bcrypt.hashSync(pw, 4);
  const fbscrypt = (hash: string) => `$fbscrypt$v=1,n=14,r=8,p=1,ss=Bw==,sk=${SIGNER_KEY}$${SCRYPT_SALT}$${hash}`;
  const sb: Array<[string, string, string]> = [
    [`sb-bcrypt@${domain}`, 'sb-bcrypt-Secret1', bc('sb-bcrypt-Secret1')],
    [`sb-fb-user1@${domain}`, 'user1password', fbscrypt(SCRYPT_USER1_HASH)],
    [`sb-fb-hunter2@${domain}`, 'hunter2', fbscrypt(SCRYPT_HUNTER2_HASH)],
  ];
  const supabase = join(dir, 'users.csv');
  const sbHeader =
    'id,email,encrypted_password,email_confirmed_at,phone,phone_confirmed_at,raw_app_meta_data,raw_user_meta_data,created_at,last_sign_in_at,banned_until,is_anonymous';
  const app = '{"provider":"email","providers":["email"]}';
  const sbRows = sb.map(([email, , digest]) =>
    [randomUUID(), email, digest, '2024-02-01 10:30:00.123456+00', '', '', app, '{}', '2024-02-01 09:30:00.123456+00', '', '', 'f']
      .map(csvCell)
      .join(','),
  );
  writeFileSync(supabase, [sbHeader, ...sbRows].join('\n') + '\n');
  // Its companion tables, empty (a project without social logins or MFA exports the header line).
  const identities = join(dir, 'identities.csv');
  writeFileSync(identities, 'id,provider_id,user_id,identity_data,provider,email,created_at\n');
  const factors = join(dir, 'mfa_factors.csv');
  writeFileSync(factors, 'id,user_id,friendly_name,factor_type,status,secret,phone,created_at\n');

  const clerkUsers: Array<[string, string, string, string]> = [
    [`clerk-bcrypt@${domain}`, 'clerk-bcrypt-Secret1', bc('clerk-bcrypt-Secret1'), 'bcrypt'],
    [`clerk-fb-user1@${domain}`, 'user1password', `${SCRYPT_USER1_HASH}$${SCRYPT_SALT}$${SIGNER_KEY}$Bw==$8$14`, 'scrypt_firebase'],
    // Web-safe unpadded base64 (the Admin SDK's form), normalised by the reader to what the core compares.
    [
      `clerk-fb-hunter2@${domain}`,
      'hunter2',
      `${webSafe(SCRYPT_HUNTER2_HASH)}$${webSafe(SCRYPT_SALT)}$${webSafe(SIGNER_KEY)}$Bw$8$14`,
      'scrypt_firebase',
    ],
  ];
  const clerk = join(dir, 'clerk.csv');
  const clerkHeader =
    'id,first_name,last_name,username,primary_email_address,primary_phone_number,verified_email_addresses,unverified_email_addresses,verified_phone_numbers,unverified_phone_numbers,totp_secret,password_digest,password_hasher,backup_codes_enabled,backup_codes,public_metadata,private_metadata,unsafe_metadata,created_at';
  const clerkRows = clerkUsers.map(([email, , digest, hasher], i) =>
    [
      `user_${randomUUID().slice(0, 8)}${i}`,
      '',
      '',
      '',
      email,
      '',
      email,
      '',
      '',
      '',
      '',
      digest,
      hasher,
      '',
      '',
      '',
      '',
      '',
      '2024-02-07T00:00:00.000Z',
    ]
      .map(csvCell)
      .join(','),
  );
  writeFileSync(clerk, [clerkHeader, ...clerkRows].join('\n') + '\n');
  const users: Known[] = [...sb, ...clerkUsers].map(([email, password, digest]) => ({
    email,
    password,
    algorithm: digest.startsWith('$2') ? 'bcrypt' : 'external_scrypt',
  }));
  return { supabase: [supabase, identities, factors], clerk, users };
}

export function vendorScryptSuite(name: string, skip: boolean, target: () => Promise<VendorTarget>, domain: string): void {
  let dir: string;
  let t: VendorTarget;
  let files: ReturnType<typeof writeExports>;
  const core = () => createCoreClient({ url: t.url, apiKey: t.apiKey, retry: { retries: 8, baseDelayMs: 100, maxDelayMs: 2000 } });

  beforeAll(async () => {
    if (skip) return;
    t = await target();
    dir = mkdtempSync(join(tmpdir(), 'am-vendor-scrypt-'));
    files = writeExports(dir, domain);
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe.skipIf(skip)(`Supabase $fbscrypt$ and Clerk scrypt_firebase digests (${name})`, () => {
    it.each([
      ['Supabase', () => files.supabase, 'sb-'],
      ['Clerk', () => [files.clerk], 'clerk-'],
    ] as const)('%s: the spot-check proves the conversion: each known password matches, a wrong one does not', async (_, file, pfx) => {
      const mine = files.users.filter((u) => u.email.startsWith(pfx));
      const checks = mine.flatMap((u) => ['--check-password', `${u.email}:${u.password}`]);
      const ok = await cli(['validate', ...file(), '--signer-key', SIGNER_KEY, ...checks, '--json'], dir);
      expect(ok.exitCode, ok.stdout.slice(-2000) + ok.stderr).toBe(0);
      const report = JSON.parse(ok.stdout) as {
        summary: { valid: number; invalid: number; passwordUsers: Record<string, number> };
        spotChecks: Array<{ user: string; result: string; detail: string }>;
      };
      expect(report.summary).toMatchObject({ valid: 3, invalid: 0, passwordUsers: { bcrypt: 1, external_scrypt: 2 } });
      expect(report.spotChecks.map((s) => [s.user, s.result])).toEqual(mine.map((u) => [u.email, 'match']));
      const scrypt = report.spotChecks.filter((s) => mine.find((u) => u.email === s.user)!.algorithm === 'external_scrypt');
      expect(scrypt.map((s) => s.detail)).toEqual([
        'the password matches the external_scrypt hash',
        'the password matches the external_scrypt hash',
      ]);
      // The other vector's password is wrong for each digest: the converted hash is this user's, not just any.
      const [a, b] = mine.filter((u) => u.algorithm === 'external_scrypt') as [Known, Known];
      const wrong = await cli(
        ['validate', ...file(), '--signer-key', SIGNER_KEY, '--check-password', `${a.email}:${b.password}`, '--json'],
        dir,
      );
      expect(wrong.exitCode).toBe(1);
      expect((JSON.parse(wrong.stdout) as { spotChecks: Array<{ result: string }> }).spotChecks).toMatchObject([
        { result: 'wrong-password' },
      ]);
      expect(ok.stdout + ok.stderr + wrong.stdout + wrong.stderr).not.toContain(SIGNER_KEY.slice(0, 16));
    });

    it('both exports import, every user signs in at the core with the known password, a wrong one is refused', async () => {
      const r = await cli(
        [
          'run',
          ...files.supabase,
          files.clerk,
          '--core',
          t.url,
          '--yes',
          '--signer-key',
          SIGNER_KEY,
          '--journal',
          join(dir, 'j.ndjson'),
          '--json',
        ],
        dir,
        t.env,
      );
      expect(r.exitCode, r.stdout.slice(-2000) + r.stderr.slice(-2000)).toBe(0);
      expect(summaryOf(r.stdout)).toMatchObject({ total: 6, imported: 6, failed: 0, skipped: 0 });
      const c = core();
      try {
        for (const u of files.users) {
          expect((await c.signIn(u.email, u.password)).status, u.email).toBe('OK');
          expect((await c.signIn(u.email, `${u.password}x`)).status, u.email).toBe('WRONG_CREDENTIALS_ERROR');
          // No legacy entry: the digest went into the core as Firebase scrypt, not to migration at sign-in.
          const found = await c.listUsersByAccountInfo({ email: u.email });
          expect(found.users, u.email).toHaveLength(1);
          const login = found.users[0]!.loginMethods.find((m) => m.recipeId === 'emailpassword')!;
          expect(Object.keys((await c.getUserMetadata(login.recipeUserId)).metadata)).not.toContain('auth-migrate:legacy-password');
        }
      } finally {
        c.close();
      }
    }, 180_000);
  });
}
