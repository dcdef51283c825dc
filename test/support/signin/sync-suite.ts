// Issue 32: a sync keeps legacy entries right, run against a core (the sandbox: test/e2e/signin-sync.test.ts; a real
// core: test/core/signin-sync.test.ts). A user waiting for migration at first sign-in whose legacy hash changed in
// the newer export (md5 to another md5) gets the new entry (a fresh MAC): the new password signs in through the
// part, the old one does not; one whose newer export holds a hash the core takes (bcrypt) gets it imported and the
// entry ended (`via: sync`). A rollback of the sync puts both back as the first run left them (the old entry, and
// the placeholder password over the imported hash); the sync again, then the sign-ins; signin-status counts each
// step. Ids and emails carry the caller's prefix and domain, so a shared core is fine.
import bcrypt from 'bcryptjs';
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

export function signInSyncSuite(name: string, skip: boolean, target: () => Promise<SuiteTarget>, prefix: string, domain: string): void {
  let dir: string;
  let t: SuiteTarget | undefined;
  let app: TestApp;
  const id = (label: string) => `${prefix}${label}`;
  const email = (label: string) => `${id(label)}@${domain}`;
  const user = (label: string, hash: string) => JSON.stringify({ id: id(label), email: email(label), password: { hash } });
  const core = () => createCoreClient({ url: t!.url, apiKey: t!.apiKey, retry: { retries: 8, baseDelayMs: 100, maxDelayMs: 2000 } });
  async function loginId(label: string): Promise<string> {
    const found = (await core().listUsersByAccountInfo({ email: email(label) })).users;
    expect(found).toHaveLength(1);
    return found[0]!.loginMethods.find((m) => m.recipeId === 'emailpassword')!.recipeUserId;
  }
  const metadataOf = async (label: string) => (await core().getUserMetadata(await loginId(label))).metadata;
  const macOf = async (label: string) => ((await metadataOf(label))[ENTRY] as { mac?: string } | undefined)?.mac;
  const coreSignIn = async (label: string, password: string) => (await core().signIn(email(label), password)).status;
  const signIn = async (label: string, password: string) => (await EmailPassword.signIn('public', email(label), password)).status;
  const eventsOf = async (label: string) => {
    const userId = await loginId(label);
    return app.events.filter((e) => e.userId === userId).map((e) => e.outcome);
  };
  const env = () => ({ ...t!.env, AUTH_MIGRATE_SIGNIN_SECRET: SIGNIN_SECRET });
  const run = (file: string, ...more: string[]) =>
    cli(
      ['run', file, '--core', t!.url, '--yes', '--out', 'runs', '--unusable-hashes', 'migrate-at-sign-in', '--json', ...more],
      dir,
      env(),
    );
  /** `signin-status --json` of a run's journal (its core read from the journal). */
  async function status(journal: string): Promise<Record<string, unknown>> {
    const s = await cli(['signin-status', '--journal', journal, '--json'], dir, t!.env);
    expect(s.exitCode, s.stderr).toBe(0);
    return JSON.parse(s.stdout) as Record<string, unknown>;
  }
  const ended = (over: Record<string, number>) => ({ 'sign-in': 0, 'password-set': 0, expired: 0, sync: 0, ...over });

  let firstJournal: string;
  beforeAll(async () => {
    if (skip) return;
    t = await target();
    dir = mkdtempSync(join(tmpdir(), 'am-signin-sync-'));
    writeFileSync(
      join(dir, 'v1.ndjson'),
      [user('md5-md5', md5('old-1')), user('md5-bcrypt', md5('old-2')), user('same', md5('same-3'))].join('\n') + '\n',
    );
    writeFileSync(
      join(dir, 'v2.ndjson'),
      [user('md5-md5', md5('new-1')), user('md5-bcrypt', bcrypt.hashSync('new-2', 4)), user('same', md5('same-3'))].join('\n') + '\n',
    );
    const first = await run('v1.ndjson');
    expect(first.exitCode, first.stdout + first.stderr).toBe(0);
    expect(summaryOf(first.stdout)).toMatchObject({ imported: 3, failed: 0 });
    firstJournal = summaryOf(first.stdout).journal as string;
    app = initTestApp(t.url, t.apiKey);
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe.skipIf(skip)(`run --sync and rollback keep legacy entries right (${name})`, () => {
    let before: { md5md5?: string; bcrypt?: string; same?: string };
    let journal: string;

    it('after the first run, signin-status counts the three users waiting (md5)', async () => {
      expect(await status(firstJournal)).toMatchObject({ users: 3, waiting: 3, invalid: 0, noEntry: 0, ended: ended({}) });
    });

    it('the sync replaces a changed legacy entry (a fresh MAC) and ends the one whose new hash the core takes', async () => {
      before = { md5md5: await macOf('md5-md5'), bcrypt: await macOf('md5-bcrypt'), same: await macOf('same') };
      expect(Object.values(before).every((mac) => typeof mac === 'string')).toBe(true);
      const sync = await run('v2.ndjson', '--sync');
      expect(sync.exitCode, sync.stdout + sync.stderr).toBe(0);
      journal = summaryOf(sync.stdout).journal as string;
      const replaced = (await metadataOf('md5-md5'))[ENTRY] as { hash: string; mac: string };
      expect(replaced.hash).toBe(md5('new-1'));
      expect(replaced.mac).not.toBe(before.md5md5);
      expect(await macOf('same')).toBe(before.same);
      expect((await metadataOf('md5-bcrypt'))[ENTRY]).toBeUndefined();
      expect((await metadataOf('md5-bcrypt'))[DONE]).toMatchObject({ via: 'sync', algorithm: 'md5' });
      expect(await coreSignIn('md5-bcrypt', 'new-2')).toBe('OK');
      expect(await coreSignIn('md5-bcrypt', 'old-2')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await coreSignIn('md5-bcrypt', placeholderPassword(SIGNIN_SECRET, id('md5-bcrypt')))).toBe('WRONG_CREDENTIALS_ERROR');
      // The users of the first run: two still waiting, one ended by the sync.
      expect(await status(firstJournal)).toMatchObject({ users: 3, waiting: 2, invalid: 0, ended: ended({ sync: 1 }) });
    });

    it('a rollback of the sync puts both entries back, and the placeholder over the imported hash', async () => {
      const r = await cli(['rollback', '--journal', journal, '--core', t!.url, '--yes', '--json'], dir, env());
      expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
      expect(await macOf('md5-md5')).toBe(before.md5md5);
      expect(await macOf('md5-bcrypt')).toBe(before.bcrypt);
      expect((await metadataOf('md5-bcrypt'))[DONE]).toBeUndefined();
      expect(await coreSignIn('md5-bcrypt', placeholderPassword(SIGNIN_SECRET, id('md5-bcrypt')))).toBe('OK');
      expect(await coreSignIn('md5-bcrypt', 'new-2')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(r.stderr).not.toContain(md5('old-1'));
      expect(await status(firstJournal)).toMatchObject({ users: 3, waiting: 3, invalid: 0, ended: ended({}) });
    });

    it('synced again: the new passwords sign in through the part, the old ones never; signin-status counts them', async () => {
      const sync = await run('v2.ndjson', '--sync');
      expect(sync.exitCode, sync.stdout + sync.stderr).toBe(0);
      expect(await signIn('md5-md5', 'old-1')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await signIn('md5-md5', 'new-1')).toBe('OK');
      expect(await signIn('md5-md5', 'old-1')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await coreSignIn('md5-md5', 'new-1')).toBe('OK'); // the core's own hash now
      expect((await metadataOf('md5-md5'))[DONE]).toMatchObject({ via: 'sign-in', algorithm: 'md5' });
      expect(await signIn('md5-bcrypt', 'old-2')).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await signIn('md5-bcrypt', 'new-2')).toBe('OK');
      expect(await signIn('same', 'same-3')).toBe('OK');
      expect(await eventsOf('md5-md5')).toEqual(['migrated']);
      expect(await eventsOf('md5-bcrypt')).toEqual([]);
      expect(await eventsOf('same')).toEqual(['migrated']);
      expect(await status(firstJournal)).toMatchObject({
        users: 3,
        waiting: 0,
        invalid: 0,
        ended: ended({ 'sign-in': 2, sync: 1 }),
        byAlgorithm: { md5: { waiting: 0, ended: ended({ 'sign-in': 2, sync: 1 }) } },
      });
    });
  });
}
