// The sign-in migration checks of issue 21's done-when, run against a core: the sandbox (test/e2e/signin-migration
// .test.ts) and the core named by AUTH_MIGRATE_TEST_CORE_URL (test/core/signin.test.ts). `run --unusable-hashes
// migrate-at-sign-in` imports users whose hash the core cannot take, and a test app on supertokens-node with
// auth-migrate-signin signs each in with the old password: the second sign-in is the core's own hash (the core alone
// accepts it), the legacy entry is gone; a wrong password is WRONG_CREDENTIALS_ERROR and leaves it; simultaneous first
// sign-ins give one login; a disabled user stays refused; a reset before the first sign-in ends the entry;
// signin-status counts what happened. Every email is under a domain of this run's own, so a shared core is fine.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeholderPassword } from 'auth-migrate-signin/protocol';
import { createCoreClient } from '../../../src/core-client/client.js';
import { cli, summaryOf } from '../cli.js';
import { initTestApp, type TestApp } from './app.js';
import { caseUsers, SIGNIN_SECRET, signInUsers } from './users.js';

export interface SuiteTarget {
  url: string;
  apiKey?: string;
  /** Environment of the CLI (keys). */
  env: Record<string, string>;
}

export function signInMigrationSuite(name: string, skip: boolean, target: () => Promise<SuiteTarget>, domain: string): void {
  const DOMAIN = domain;
  const ALGORITHMS = signInUsers(DOMAIN);
  const CASES = caseUsers(DOMAIN);
  const ENTRY = 'auth-migrate:legacy-password';
  const DONE = 'auth-migrate:legacy-done';
  let dir: string;
  let t: SuiteTarget | undefined;
  let app: TestApp;
  const core = () => createCoreClient({ url: t!.url, apiKey: t!.apiKey, retry: { retries: 8, baseDelayMs: 100, maxDelayMs: 2000 } });
  const email = (label: string) => `${label}@${DOMAIN}`;
  const run = (journal: string) =>
    cli(
      [
        'run',
        'users.ndjson',
        '--core',
        t!.url,
        '--yes',
        '--journal',
        journal,
        '--unusable-hashes',
        'migrate-at-sign-in',
        '--disabled',
        'role:blocked',
        '--json',
      ],
      dir,
      { ...t!.env, AUTH_MIGRATE_SIGNIN_SECRET: SIGNIN_SECRET },
    );

  /** The email-password login's user id (the metadata key of its entry). */
  async function loginId(label: string): Promise<string> {
    const users = await core().listUsersByAccountInfo({ email: email(label) });
    expect(users.users).toHaveLength(1);
    return users.users[0]!.loginMethods.find((m) => m.recipeId === 'emailpassword')!.recipeUserId;
  }
  const metadataOf = async (label: string) => (await core().getUserMetadata(await loginId(label))).metadata;
  const coreSignIn = async (label: string, password: string) => (await core().signIn(email(label), password)).status;
  const signIn = (label: string, password: string) => EmailPassword.signIn('public', email(label), password);

  beforeAll(async () => {
    if (skip) return;
    t = await target();
    dir = mkdtempSync(join(tmpdir(), 'am-signin-'));
    const records = [...ALGORITHMS, ...Object.values(CASES)].map((u) => JSON.stringify(u.record));
    writeFileSync(join(dir, 'users.ndjson'), records.join('\n') + '\n');
    const r = await run('j.ndjson');
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ imported: ALGORITHMS.length + 5, failed: 0, skipped: 0 });
    app = initTestApp(t.url, t.apiKey);
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe.skipIf(skip)(`migration at first sign-in (${name})`, () => {
    it('the run gives each user an email-password login nothing opens, and an entry only the backend reads', async () => {
      expect(await coreSignIn('md5', 'lètmein')).toBe('WRONG_CREDENTIALS_ERROR');
      const entry = (await metadataOf('md5'))[ENTRY] as Record<string, unknown>;
      expect(entry).toMatchObject({ v: 2, algorithm: 'md5', sourceId: 'md5', hash: '88a434c88cca4e900f7874cd98123f43' });
      expect(entry.mac).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The login's password is the placeholder, derived from the secret: the core alone accepts it.
      expect(await coreSignIn('md5', placeholderPassword(SIGNIN_SECRET, 'md5'))).toBe('OK');
      expect((await metadataOf('disabled'))[ENTRY]).toMatchObject({ disabledRole: 'blocked' });
      // The export file for teams with their own table: every user, the disabled one marked (issue 20 item 5).
      const lines = readFileSync(join(dir, 'j.signin-migration.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(ALGORITHMS.length + 5);
      expect(lines.filter((l) => l.disabled).map((l) => l.sourceId)).toEqual(['disabled']);
      expect(lines.find((l) => l.sourceId === 'md5')).toMatchObject({
        outcome: 'imported',
        userId: await loginId('md5'),
        algorithm: 'md5',
      });
    });

    it.each(ALGORITHMS.map((u) => [u.label, u] as const))(
      '%s: the old password signs in once; then the core alone accepts it',
      async (label, u) => {
        expect((await metadataOf(label))[ENTRY]).toBeDefined();
        const first = await signIn(label, u.password);
        expect(first.status).toBe('OK');
        // Served by the core's own hash now: the core's sign-in, without the module, accepts the password.
        expect(await coreSignIn(label, u.password)).toBe('OK');
        const after = await metadataOf(label);
        expect(after[ENTRY]).toBeUndefined();
        expect(after[DONE]).toMatchObject({ via: 'sign-in' });
        expect((await signIn(label, u.password)).status).toBe('OK');
        expect((await signIn(label, u.password + '!')).status).toBe('WRONG_CREDENTIALS_ERROR');
      },
    );

    it('a wrong password answers exactly as the core does and leaves the entry', async () => {
      const wrong = await signIn('wrong', 'not-the-password');
      const plain = await EmailPassword.signIn('public', 'nobody@' + DOMAIN, 'not-the-password');
      expect(wrong).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
      expect(wrong).toEqual(plain);
      expect((await metadataOf('wrong'))[ENTRY]).toBeDefined();
      expect(await coreSignIn('wrong', 'not-the-password')).toBe('WRONG_CREDENTIALS_ERROR');
    });

    it('five simultaneous first sign-ins: every one OK, one login, the entry gone', async () => {
      const answers = await Promise.all(Array.from({ length: 5 }, () => signIn('race', 'lètmein')));
      expect(answers.map((a) => a.status)).toEqual(['OK', 'OK', 'OK', 'OK', 'OK']);
      const users = (await core().listUsersByAccountInfo({ email: email('race') })).users;
      expect(users).toHaveLength(1);
      expect(users[0]!.loginMethods.filter((m) => m.recipeId === 'emailpassword')).toHaveLength(1);
      expect(await coreSignIn('race', 'lètmein')).toBe('OK');
      expect((await metadataOf('race'))[ENTRY]).toBeUndefined();
    });

    it('a disabled user (--disabled role:blocked) stays refused with the right password', async () => {
      expect((await signIn('disabled', 'lètmein')).status).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await coreSignIn('disabled', 'lètmein')).toBe('WRONG_CREDENTIALS_ERROR');
      expect((await metadataOf('disabled'))[ENTRY]).toBeDefined();
      expect(app.events).toContainEqual(expect.objectContaining({ outcome: 'disabled', algorithm: 'md5' }));
    });

    it('a password reset before the first sign-in ends the entry: the old password never overwrites the new one', async () => {
      const id = await loginId('reset');
      const token = await EmailPassword.createResetPasswordToken('public', id, email('reset'));
      expect(token.status).toBe('OK');
      if (token.status !== 'OK') return;
      expect((await EmailPassword.resetPasswordUsingToken('public', token.token, 'a-new-password-1')).status).toBe('OK');
      expect(await metadataOf('reset')).toMatchObject({ [DONE]: { via: 'password-set' } });
      expect((await metadataOf('reset'))[ENTRY]).toBeUndefined();
      expect((await signIn('reset', 'lètmein')).status).toBe('WRONG_CREDENTIALS_ERROR');
      expect((await signIn('reset', 'a-new-password-1')).status).toBe('OK');
    });

    it('Cognito: a temporary password (FORCE_CHANGE_PASSWORD) goes to reset, never into the core', async () => {
      expect((await signIn('temporary', 'temporary-1')).status).toBe('WRONG_CREDENTIALS_ERROR');
      expect(app.resets).toEqual([{ userId: await loginId('temporary'), email: email('temporary') }]);
      expect(await coreSignIn('temporary', 'temporary-1')).toBe('WRONG_CREDENTIALS_ERROR');
      expect((await signIn('temporary', 'wrong')).status).toBe('WRONG_CREDENTIALS_ERROR');
      expect(app.resets).toHaveLength(1);
    });

    it('signin-status counts the sign-ins above; a fresh-journal rerun revives no entry; --expire ends the rest', async () => {
      const status = async (...extra: string[]) => {
        const r = await cli(['signin-status', '--journal', 'j.ndjson', '--core', t!.url, '--json', ...extra], dir, t!.env);
        expect(r.exitCode, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as Record<string, unknown> & { byAlgorithm: Record<string, { waiting: number }> };
      };
      const signedIn = ALGORITHMS.length + 1; // every algorithm, and the race
      expect(await status()).toMatchObject({
        users: ALGORITHMS.length + 5,
        waiting: 3, // wrong, disabled, temporary
        ended: { 'sign-in': signedIn, 'password-set': 1, expired: 0 },
      });
      const again = await run('fresh.ndjson');
      expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, failed: 0 });
      expect(await coreSignIn('md5', 'lètmein')).toBe('OK');
      expect((await status()).waiting).toBe(3);
      const text = await cli(['signin-status', '--journal', 'j.ndjson', '--core', t!.url], dir, t!.env);
      expect(text.stdout).toMatch(/md5: waiting 2 \(since \d{4}-\d\d-\d\d\), signed in 2/);
      const expired = await status('--expire');
      expect((expired.expired as Array<{ sourceId: string }>).map((u) => u.sourceId)).toEqual(['disabled', 'temporary', 'wrong']);
      expect(JSON.stringify(expired)).not.toContain('88a434c88cca4e900f7874cd98123f43');
      expect(await status()).toMatchObject({ waiting: 0, ended: { expired: 3 } });
      expect((await signIn('wrong', 'lètmein')).status).toBe('WRONG_CREDENTIALS_ERROR');
    }, 240_000); // six CLI runs: a loaded machine and a real core take minutes
  });
}
