// Issue 32's guards of migration at first sign-in, run against a core (the sandbox: test/e2e/signin-guards.test.ts;
// a real core: test/core/signin-guards.test.ts): a password set through the core's own API before the first
// sign-in wins over the old one; a forged, altered or copied entry is ignored and the real password keeps working;
// the placeholder never signs anyone in through the part; two app processes signing in at once leave one login
// with the password; and the run refuses migrate-at-sign-in without the secret.
import bcrypt from 'bcryptjs';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeholderPassword } from 'auth-migrate-signin/protocol';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../../src/core-client/client.js';
import { cli, summaryOf } from '../cli.js';
import { initTestApp, type TestApp } from './app.js';
import type { SuiteTarget } from './suite.js';
import { SIGNIN_SECRET } from './users.js';

const ENTRY = 'auth-migrate:legacy-password';
const DONE = 'auth-migrate:legacy-done';
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const CHILD = new URL('./app-process.mjs', import.meta.url).pathname;

export function signInGuardSuite(name: string, skip: boolean, target: () => Promise<SuiteTarget>, domain: string): void {
  let dir: string;
  let t: SuiteTarget | undefined;
  let app: TestApp;
  const email = (label: string) => `${label}@${domain}`;
  const core = () => createCoreClient({ url: t!.url, apiKey: t!.apiKey, retry: { retries: 8, baseDelayMs: 100, maxDelayMs: 2000 } });
  const legacyUser = (label: string, password: string) => ({ id: label, email: email(label), password: { hash: md5(password) } });
  const users = [
    legacyUser('core-set', 'old-pass-1'),
    legacyUser('altered', 'old-pass-2'),
    legacyUser('attacker', 'attacker-pass'),
    legacyUser('victim', 'victim-pass'),
    legacyUser('placeholder', 'old-pass-3'),
    legacyUser('two-apps', 'old-pass-4'),
    { id: 'never', email: email('never'), password: { hash: bcrypt.hashSync('real-pass-1', 4) } },
  ];
  const run = (journal: string, env: Record<string, string>) =>
    cli(
      ['run', 'users.ndjson', '--core', t!.url, '--yes', '--journal', journal, '--unusable-hashes', 'migrate-at-sign-in', '--json'],
      dir,
      {
        ...t!.env,
        ...env,
      },
    );
  async function loginId(label: string): Promise<string> {
    const found = await core().listUsersByAccountInfo({ email: email(label) });
    return found.users[0]!.loginMethods.find((m) => m.recipeId === 'emailpassword')!.recipeUserId;
  }
  const metadataOf = async (label: string) => (await core().getUserMetadata(await loginId(label))).metadata;
  const setMetadata = async (label: string, update: Record<string, unknown>) => core().updateUserMetadata(await loginId(label), update);
  const coreSignIn = async (label: string, password: string) => (await core().signIn(email(label), password)).status;
  const signIn = async (label: string, password: string) => (await EmailPassword.signIn('public', email(label), password)).status;
  const eventsOf = async (label: string) => {
    const id = await loginId(label);
    return app.events.filter((e) => e.userId === id).map((e) => e.outcome);
  };

  beforeAll(async () => {
    if (skip) return;
    t = await target();
    dir = mkdtempSync(join(tmpdir(), 'am-guard-'));
    writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
    const r = await run('j.ndjson', { AUTH_MIGRATE_SIGNIN_SECRET: SIGNIN_SECRET });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ imported: users.length, failed: 0 });
    app = initTestApp(t.url, t.apiKey);
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe.skipIf(skip)(`the guards of migration at first sign-in (${name})`, () => {
    it('before any sign-in: verify names the waiting users and checks their passwords against the entry; signin-status finds the core in the journal', async () => {
      writeFileSync(join(dir, 'creds.csv'), `${email('core-set')},old-pass-1\n${email('altered')},not-it\n${email('never')},real-pass-1\n`);
      const v = await cli(
        [
          'verify',
          'users.ndjson',
          '--core',
          t!.url,
          '--journal',
          'j.ndjson',
          '--unusable-hashes',
          'migrate-at-sign-in',
          '--credentials',
          'creds.csv',
        ],
        dir,
        t!.env,
      );
      expect(v.exitCode, v.stderr).toBe(1); // one password is wrong
      expect(v.stderr).toContain('ok: core-set: waiting for first sign-in (md5)');
      expect(v.stderr).toMatch(/waiting for first sign-in 6 \(md5 6\); credentials 2\/3 signed in/);
      expect(v.stderr).toContain(`${email('altered')} is waiting for first sign-in and the password does not match its legacy hash`);
      expect(v.stderr).not.toContain(md5('old-pass-2'));
      const status = await cli(['signin-status', '--journal', 'j.ndjson', '--json'], dir, t!.env);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(status.stderr).toContain("(the run's, from its journal)");
      expect(JSON.parse(status.stdout)).toMatchObject({ users: 6, waiting: 6, invalid: 0 });
    });

    it('the run refuses migrate-at-sign-in without the secret, or with a short one, naming the variable', async () => {
      for (const env of [{}, { AUTH_MIGRATE_SIGNIN_SECRET: 'too-short' }] as Record<string, string>[]) {
        const r = await run('refused.ndjson', env);
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain('AUTH_MIGRATE_SIGNIN_SECRET');
        expect(r.stderr).not.toContain('too-short');
      }
    });

    it('the secret is in no file the run wrote', async () => {
      const { readdirSync, readFileSync, statSync } = await import('node:fs');
      const walk = (d: string): string[] =>
        readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
      for (const file of walk(dir)) expect(readFileSync(file, 'utf8'), file).not.toContain(SIGNIN_SECRET);
    });

    it("a password set through the core's API before the first sign-in: the old password refused, the new one accepted", async () => {
      const r = await fetch(`${t!.url}/recipe/user`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', rid: 'emailpassword', ...(t!.apiKey ? { 'api-key': t!.apiKey } : {}) },
        body: JSON.stringify({ recipeUserId: await loginId('core-set'), password: 'new-pass-1' }),
      });
      expect(await r.json()).toEqual({ status: 'OK' });
      expect((await metadataOf('core-set'))[ENTRY]).toBeDefined(); // the core knows nothing of the entry
      expect(await signIn('core-set', 'old-pass-1')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await eventsOf('core-set')).toEqual(['password-set']);
      expect(await metadataOf('core-set')).toMatchObject({ [DONE]: { via: 'password-set' } });
      expect((await metadataOf('core-set'))[ENTRY]).toBeUndefined();
      expect(await signIn('core-set', 'new-pass-1')).toBe('OK');
      expect(await signIn('core-set', 'old-pass-1')).toBe('WRONG_CREDENTIALS_ERROR');
    });

    it("an altered entry of a waiting user (the hash swapped for the writer's own) is ignored; put back, it works", async () => {
      const real = (await metadataOf('altered'))[ENTRY] as Record<string, unknown>;
      await setMetadata('altered', { [ENTRY]: { ...real, hash: md5('chosen-by-writer') } });
      expect(await signIn('altered', 'chosen-by-writer')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await signIn('altered', 'old-pass-2')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await eventsOf('altered')).toEqual(['invalid-entry', 'invalid-entry']);
      expect(await coreSignIn('altered', 'chosen-by-writer')).toBe('WRONG_CREDENTIALS_ERROR');
      await setMetadata('altered', { [ENTRY]: real });
      expect(await signIn('altered', 'old-pass-2')).toBe('OK');
      expect(await signIn('altered', 'chosen-by-writer')).toBe('WRONG_CREDENTIALS_ERROR');
    });

    it("a valid entry copied onto another waiting user is ignored: the copier's password does not open the victim", async () => {
      const own = (await metadataOf('attacker'))[ENTRY] as Record<string, unknown>;
      const victims = (await metadataOf('victim'))[ENTRY];
      await setMetadata('victim', { [ENTRY]: own });
      expect(await signIn('victim', 'attacker-pass')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await eventsOf('victim')).toEqual(['invalid-entry']);
      await setMetadata('victim', { [ENTRY]: victims });
      expect(await signIn('victim', 'victim-pass')).toBe('OK');
    });

    it('entries forged on a user that never had one (with and without a MAC field) are ignored; the real password works', async () => {
      for (const forged of [
        { v: 1, sourceId: 'never', algorithm: 'md5', hash: md5('forged-pass'), since: 1 },
        { v: 2, sourceId: 'never', email: email('never'), algorithm: 'md5', hash: md5('forged-pass'), since: 1, mac: 'A'.repeat(43) },
      ]) {
        await setMetadata('never', { [ENTRY]: forged });
        expect(await signIn('never', 'forged-pass')).toBe('WRONG_CREDENTIALS_ERROR');
        expect(await signIn('never', 'real-pass-1')).toBe('OK');
        expect(await coreSignIn('never', 'real-pass-1')).toBe('OK');
      }
      expect(await eventsOf('never')).toEqual(['invalid-entry', 'invalid-entry']);
    });

    it('the placeholder opens the login at the core, never through the part; the old password still migrates', async () => {
      const placeholder = placeholderPassword(SIGNIN_SECRET, 'placeholder');
      expect(await coreSignIn('placeholder', placeholder)).toBe('OK');
      expect(await signIn('placeholder', placeholder)).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await eventsOf('placeholder')).toEqual(['placeholder-refused']);
      expect(await signIn('placeholder', 'old-pass-3')).toBe('OK');
      expect(await coreSignIn('placeholder', placeholder)).toBe('WRONG_CREDENTIALS_ERROR');
    });

    it('two app processes signing in at once: both OK, one login, the entry ended once, the password the core now holds', async () => {
      const startAt = String(Date.now() + 2500);
      const env = {
        AUTH_MIGRATE_SIGNIN_SECRET: SIGNIN_SECRET,
        PATH: process.env.PATH ?? '',
        ...(t!.apiKey ? { CORE_API_KEY: t!.apiKey } : {}),
      };
      const both = await Promise.all(
        [0, 1].map(() => execa(process.execPath, [CHILD, t!.url, email('two-apps'), 'old-pass-4', startAt], { env, extendEnv: false })),
      );
      const answers = both.map((b) => JSON.parse(b.stdout) as { status: string; events: string[] });
      expect(answers.map((a) => a.status)).toEqual(['OK', 'OK']);
      // Each process migrates or finds the migration done; neither ends the entry as "password set".
      expect(answers.flatMap((a) => a.events).filter((e) => e !== 'migrated')).toEqual([]);
      expect(answers.flatMap((a) => a.events).length).toBeGreaterThanOrEqual(1);
      const found = (await core().listUsersByAccountInfo({ email: email('two-apps') })).users;
      expect(found).toHaveLength(1);
      expect(found[0]!.loginMethods.filter((m) => m.recipeId === 'emailpassword')).toHaveLength(1);
      expect(await metadataOf('two-apps')).toMatchObject({ [DONE]: { via: 'sign-in' } });
      expect(await coreSignIn('two-apps', 'old-pass-4')).toBe('OK');
    }, 60_000);
  });
}
