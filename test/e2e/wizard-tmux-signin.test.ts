// Issue 32: the sign-in secret typed in the built wizard reaches the run, in a real terminal (tmux) at 60x16, 80x24
// and 120x40, keys sent in bursts (tmux send-keys of arrows and text at once): the secret after six arrows lands in
// its field (masked), "migrate at sign-in" chosen on the plan, the run into a sandbox core this file starts; then a
// user migrated at sign-in signs in through the package (withLegacySignIn, given the same secret) with the old
// password. The secret is on no screen and in no file the wizard wrote.
import bcrypt from 'bcryptjs';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE } from '../support/cli.js';
import { startTestSandbox } from '../support/sandbox.js';
import { initTestApp, type TestApp } from '../support/signin/app.js';
import { SIGNIN_SECRET } from '../support/signin/users.js';
import { TMUX, tmuxInTempDir } from './tmux-driver.js';

const { dir, t } = tmuxInTempDir('am-tmux-signin-');
const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
const DOMAIN = 'tmux.signin.example.test';
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const rowsOf = (screen: string) => screen.replace(/\n+$/, '').split('\n');
const filesUnder = (d: string): string[] =>
  readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? filesUnder(join(d, f)) : [join(d, f)]));

let sb: RunningSandbox | undefined;
let app: TestApp;
beforeAll(async () => {
  if (!TMUX) return;
  sb = await startTestSandbox({ store: join(dir, 'core-store.json'), licenseKey: LICENSE });
  app = initTestApp(sb.url);
}, 60_000);
afterAll(async () => {
  await sb?.stop();
});

describe.skipIf(!TMUX)('the sign-in secret typed in the wizard reaches the run (tmux, bursts)', () => {
  for (const [columns, rows] of [
    [60, 16],
    [80, 24],
    [120, 40],
  ] as const) {
    it(`${columns}x${rows}`, async () => {
      const until = async (text: string | RegExp, timeoutMs = 30_000) => {
        const s = await t.until(text, timeoutMs);
        for (const row of rowsOf(s)) expect(row.length, `wider than ${columns}: ${row}`).toBeLessThanOrEqual(columns);
        expect(s).not.toContain(SIGNIN_SECRET);
        return s;
      };
      const name = `sig${columns}`;
      const email = (u: string) => `${u}-${columns}@${DOMAIN}`;
      const file = join(dir, `${name}.ndjson`);
      const user = (u: string, hash: string) => JSON.stringify({ id: `${name}-${u}`, email: email(u), password: { hash } });
      writeFileSync(
        file,
        [user('one', md5('old-one')), user('two', md5('old-two')), user('ok', bcrypt.hashSync('ok-pass', 4))].join('\n') + '\n',
      );
      await saveProfile(
        { ...emptyProfile(name), sources: [{ path: file, format: 'canonical' }], target: { kind: 'remote', url: sb!.url } },
        {},
        env,
      );
      await t.launch(['--profile', name], { cwd: dir, env, columns, rows });
      await until(`2/8 keys · profile ${name}`);
      // Six arrows and the secret in one burst: past the three keys and where each is kept, into its field.
      await t.sendKeys('Down', 'Down', 'Down', 'Down', 'Down', 'Down', SIGNIN_SECRET);
      let s = await until(new RegExp(`sign-in secret\\s+•+\\s+✓ ${SIGNIN_SECRET.length} chars`));
      expect(s).toMatch(/api key\s+not set/);
      await t.sendKeys('Down', 'Down', 'Enter');
      await until('3/8 source files');
      await t.sendKeys('Down', 'Down', 'Down', 'Down', 'Enter');
      await until(/records 3/);
      await t.sendKeys('c');
      await until('5/8 target');
      await t.sendKeys('Down', 'Down', 'Down', 'Down', 'Enter');
      await until('preflight passed', 60_000);
      await t.sendKeys('c');
      await until('1 users to migrate');
      // "unusable hashes" two steps right (skip → without password → migrate at sign-in), then back to the top.
      await t.sendKeys('Down', 'Down', 'Down', 'Down', 'Right', 'Right');
      await until(/unusable hashes\s+import them whole/);
      await t.sendKeys('PPage', 'PPage');
      s = await until('3 users to migrate');
      expect(s.replace(/\s+/g, ' ')).not.toContain('fill "sign-in secret"');
      await t.sendKeys('r');
      await until('y writes to it');
      await t.sendKeys('y');
      await until('8/8 results: finished', 60_000);

      const seen = app.events.length;
      expect((await EmailPassword.signIn('public', email('one'), 'not-it')).status).toBe('WRONG_CREDENTIALS_ERROR');
      expect((await EmailPassword.signIn('public', email('one'), 'old-one')).status).toBe('OK');
      expect((await EmailPassword.signIn('public', email('ok'), 'ok-pass')).status).toBe('OK');
      expect(app.events.slice(seen).map((e) => e.outcome)).toEqual(['migrated']);
      for (const f of filesUnder(dir).filter((p) => !p.endsWith('tmux.sock')))
        expect(readFileSync(f, 'utf8'), f).not.toContain(SIGNIN_SECRET);
      await t.sendKeys('C-c');
      await until('EXIT CODE');
    }, 240_000);
  }
});
