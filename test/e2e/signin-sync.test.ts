// Issue 32: a sync keeps legacy entries right, on the sandbox. A user waiting for migration at first sign-in whose
// legacy hash changed in the newer export (md5 to another md5) gets the new entry (a fresh MAC): the new password
// signs in through the part, the old one does not; one whose newer export holds a hash the core takes (bcrypt)
// gets it imported and the entry ended (`via: sync`). A rollback of the sync puts both back as the first run left
// them (the old entry, and the placeholder password over the imported hash); the sync again, then the sign-ins.
import bcrypt from 'bcryptjs';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeholderPassword } from 'auth-migrate-signin/protocol';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { startTestSandbox } from '../support/sandbox.js';
import { initTestApp } from '../support/signin/app.js';
import { SIGNIN_SECRET } from '../support/signin/users.js';

const ENTRY = 'auth-migrate:legacy-password';
const DONE = 'auth-migrate:legacy-done';
const DOMAIN = 'sync.signin.example.test';
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const email = (label: string) => `${label}@${DOMAIN}`;
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE, AUTH_MIGRATE_SIGNIN_SECRET: SIGNIN_SECRET };
const user = (id: string, hash: string) => JSON.stringify({ id, email: email(id), password: { hash } });

let dir: string;
let sb: RunningSandbox;
const core = () => client(sb.url);
async function metadataOf(label: string): Promise<Record<string, unknown>> {
  const u = (await core().listUsersByAccountInfo({ email: email(label) })).users[0]!;
  return (await core().getUserMetadata(u.loginMethods.find((m) => m.recipeId === 'emailpassword')!.recipeUserId)).metadata;
}
const macOf = async (label: string) => ((await metadataOf(label))[ENTRY] as { mac?: string } | undefined)?.mac;
const coreSignIn = async (label: string, password: string) => (await core().signIn(email(label), password)).status;
const run = (file: string, ...more: string[]) =>
  cli(['run', file, '--core', sb.url, '--yes', '--out', 'runs', '--unusable-hashes', 'migrate-at-sign-in', '--json', ...more], dir, env);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-signin-sync-'));
  sb = await startTestSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
  writeFileSync(
    join(dir, 'v1.ndjson'),
    [user('md5-md5', md5('old-1')), user('md5-bcrypt', md5('old-2')), user('same', md5('same-3'))].join('\n') + '\n',
  );
  writeFileSync(
    join(dir, 'v2.ndjson'),
    [user('md5-md5', md5('new-1')), user('md5-bcrypt', bcrypt.hashSync('new-2', 4)), user('same', md5('same-3'))].join('\n') + '\n',
  );
  const first = await run('v1.ndjson');
  expect(first.exitCode, first.stderr).toBe(0);
  initTestApp(sb.url);
}, 120_000);
afterAll(async () => {
  await sb?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('run --sync and rollback keep legacy entries right', () => {
  let before: { md5md5?: string; bcrypt?: string; same?: string };
  let journal: string;

  it('the sync replaces a changed legacy entry (a fresh MAC) and ends the one whose new hash the core takes', async () => {
    before = { md5md5: await macOf('md5-md5'), bcrypt: await macOf('md5-bcrypt'), same: await macOf('same') };
    const sync = await run('v2.ndjson', '--sync');
    expect(sync.exitCode, sync.stderr).toBe(0);
    journal = summaryOf(sync.stdout).journal as string;
    const replaced = (await metadataOf('md5-md5'))[ENTRY] as { hash: string; mac: string };
    expect(replaced.hash).toBe(md5('new-1'));
    expect(replaced.mac).not.toBe(before.md5md5);
    expect(await macOf('same')).toBe(before.same);
    expect((await metadataOf('md5-bcrypt'))[ENTRY]).toBeUndefined();
    expect((await metadataOf('md5-bcrypt'))[DONE]).toMatchObject({ via: 'sync', algorithm: 'md5' });
    expect(await coreSignIn('md5-bcrypt', 'new-2')).toBe('OK');
    expect(await coreSignIn('md5-bcrypt', placeholderPassword(SIGNIN_SECRET, 'md5-bcrypt'))).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('a rollback of the sync puts both entries back, and the placeholder over the imported hash', async () => {
    const r = await cli(['rollback', '--journal', journal, '--core', sb.url, '--yes', '--json'], dir, env);
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    expect(await macOf('md5-md5')).toBe(before.md5md5);
    expect(await macOf('md5-bcrypt')).toBe(before.bcrypt);
    expect((await metadataOf('md5-bcrypt'))[DONE]).toBeUndefined();
    expect(await coreSignIn('md5-bcrypt', placeholderPassword(SIGNIN_SECRET, 'md5-bcrypt'))).toBe('OK');
    expect(await coreSignIn('md5-bcrypt', 'new-2')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(r.stderr).not.toContain(md5('old-1'));
  });

  it('synced again: the new passwords sign in through the part, the old ones do not', async () => {
    const sync = await run('v2.ndjson', '--sync');
    expect(sync.exitCode, sync.stderr).toBe(0);
    const signIn = async (label: string, password: string) => (await EmailPassword.signIn('public', email(label), password)).status;
    expect(await signIn('md5-md5', 'old-1')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signIn('md5-md5', 'new-1')).toBe('OK');
    expect(await signIn('md5-md5', 'old-1')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signIn('md5-bcrypt', 'old-2')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signIn('md5-bcrypt', 'new-2')).toBe('OK');
    expect(await signIn('same', 'same-3')).toBe('OK');
  });
});
