// The keys screen's sign-in secret (issue 32): the secret migrate-at-sign-in signs each legacy entry with, typed in
// the wizard (masked, checked as typed) or pre-filled from AUTH_MIGRATE_SIGNIN_SECRET; kept in memory or as the
// name of a variable, never in a file; the plan names the field when migrate-at-sign-in is chosen without it; and the
// secret typed reaches the run: a user migrated at sign-in then signs in through the package (withLegacySignIn).
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyProfile, loadProfile, profilePaths, saveProfile, type Profile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { initTestApp } from '../support/signin/app.js';
import { SIGNIN_SECRET } from '../support/signin/users.js';
import { LICENSE_KEY } from '../support/fixture.js';
import { renderWizard, trackSandboxes, waitFor } from './harness.js';

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const DOMAIN = 'wizard.signin.example.test';
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let env: NodeJS.ProcessEnv;
let cleanup: Array<() => void | Promise<void>> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-ui-signin-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
  const user = (u: string, hash: string) => JSON.stringify({ id: `w-${u}`, email: `${u}@${DOMAIN}`, password: { hash } });
  // Two md5 users (migrated at sign-in, or left out) and one bcrypt user the core takes.
  writeFileSync(
    join(dir, 'users.ndjson'),
    [user('one', md5('old-one')), user('two', md5('old-two')), user('ok', BCRYPT)].join('\n') + '\n',
  );
});
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
  rmSync(dir, { recursive: true, force: true });
});

function start(name: string, more: Partial<Profile>, extraEnv: NodeJS.ProcessEnv = {}) {
  return saveProfile(
    {
      ...emptyProfile(name),
      sources: [{ path: join(dir, 'users.ndjson'), format: 'canonical' }],
      target: { kind: 'sandbox', store: join(dir, `${name}.json`) },
      ...more,
    },
    {},
    env,
  ).then(() => {
    const tracked = trackSandboxes(createRealServices({ env: { ...env, ...extraEnv }, cwd: dir }));
    const w = renderWizard(tracked.services, name, { columns: 80, rows: 24 });
    cleanup.push(async () => {
      w.unmount();
      await tracked.stopAll();
    });
    return w;
  });
}

/** Every file under `d`, read. */
const filesUnder = (d: string): Array<[string, string]> =>
  readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [[p, readFileSync(p, 'utf8')] as [string, string]];
  });

describe('the sign-in secret on the keys screen', () => {
  it('is masked and checked as typed; kept in memory or as a variable name, never in the secrets file', async () => {
    const w = await start('typed', {});
    await w.until('2/8 keys · profile typed');
    expect(w.frame()).toMatch(/sign-in secret\s+not set \(for migrate at sign-in\)/);
    // Down six times: past the three keys and where each is kept, to the sign-in secret's field.
    await w.press('down', 'down', 'down', 'down', 'down', 'down', 'short-one');
    await w.until('too short (9 of at least 32 characters)');
    await w.press('down', 'down', 'enter');
    await w.until('sign-in secret: the secret is too short');
    expect(w.frame()).toContain('2/8 keys');
    await w.press('up', 'up', '-and-now-long-enough-0123456789');
    await w.until(/sign-in secret\s+•+\s+✓ 40 chars/);
    // Where it is kept: don't store, or a variable; no secrets file.
    await w.press('down');
    const keep = await w.until("› keep: [don't store]  env variable");
    expect(keep.split('\n').find((l) => l.startsWith('› keep:'))).not.toContain('secrets file');
    await w.press('right');
    await w.until(/variable \$\s+AUTH_MIGRATE_SIGNIN_SECRET\s+✗ not set in this shell/);
    await w.press('down', 'down', 'enter');
    await w.until('3/8 source files');
    const saved = await loadProfile('typed', env);
    expect(saved.profile.signinSecret).toEqual({ store: 'env', name: 'AUTH_MIGRATE_SIGNIN_SECRET' });
    for (const [file, text] of filesUnder(profilePaths(env).dir)) expect(text, file).not.toContain('short-one-and-now');
    for (const f of w.frames) expect(f).not.toContain('short-one');
  });

  it('AUTH_MIGRATE_SIGNIN_SECRET pre-fills it (masked); a variable the profile names is read, or reported missing', async () => {
    const fromEnv = await start('env', {}, { AUTH_MIGRATE_SIGNIN_SECRET: SIGNIN_SECRET });
    const s = await fromEnv.until(/sign-in secret\s+•+\s+✓ 38 chars/);
    expect(s).not.toContain(SIGNIN_SECRET);
    const named = await start('named', { signinSecret: { store: 'env', name: 'APP_SIGNIN' } }, { APP_SIGNIN: SIGNIN_SECRET });
    await named.until(/sign-in secret\s+•+\s+✓ 38 chars/);
    expect(named.frame()).toMatch(/variable \$\s+APP_SIGNIN\s+✓ set in this shell/);
    const unset = await start('unset', { signinSecret: { store: 'env', name: 'APP_SIGNIN' } });
    await unset.until('not found ($APP_SIGNIN unset), type it');
  });

  it('the plan names the field when migrate at sign-in is chosen without it, and r runs nothing', async () => {
    const w = await start('none', { unusableHashes: 'migrate-at-sign-in' });
    await w.until('2/8 keys');
    await w.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press('down', 'down', 'down', 'down', 'enter');
    await w.until(/records 3/);
    await w.press('c');
    await w.until('5/8 target');
    await w.press('down', 'down', 'enter');
    await w.until('preflight passed', 30_000);
    await w.press('c');
    await w.until('3 users to migrate');
    expect(w.frame().replace(/\s+/g, ' ')).toContain('fill "sign-in secret" on the keys screen');
    const said = 'migrate at sign-in needs the sign-in secret (not set): fill "sign-in secret" on the keys screen (step 2)';
    const times = () => w.frame().replace(/\s+/g, ' ').split(said).length - 1;
    expect(times()).toBe(1);
    await w.press('r');
    await waitFor(() => times() === 2, 'the refusal as a notice too');
    expect(w.frame()).toContain('6/8 plan');
  });

  it('the secret typed reaches the run: a user migrated at sign-in signs in through the package', async () => {
    const w = await start('run', {});
    await w.until('2/8 keys');
    await w.press('down', 'down', LICENSE_KEY, 'down', 'down', 'down', 'down', SIGNIN_SECRET);
    await w.until(/sign-in secret\s+•+\s+✓ 38 chars/);
    await w.press('down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press('down', 'down', 'down', 'down', 'enter');
    await w.until(/records 3/);
    await w.press('c');
    await w.until('5/8 target');
    await w.press('down', 'down', 'enter');
    const preflight = await w.until('preflight passed', 30_000);
    const url = /url\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(preflight)![1]!;
    await w.press('c');
    await w.until('1 users to migrate');
    // To "unusable hashes" and two steps right: skip → without password → migrate at sign-in.
    await w.press('down', 'down', 'down', 'down', 'right', 'right');
    await w.until(/unusable hashes\s+import them whole/);
    await w.until('3 users to migrate');
    expect(w.frame()).not.toContain('fill "sign-in secret"');
    await w.press('r');
    const results = await w.until('8/8 results: finished', 60_000);
    expect(results).toMatch(/imported 3 · already present 0 · failed 0/);

    const app = initTestApp(url);
    expect((await EmailPassword.signIn('public', `one@${DOMAIN}`, 'not-it')).status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await EmailPassword.signIn('public', `one@${DOMAIN}`, 'old-one')).status).toBe('OK');
    expect(app.events.map((e) => e.outcome)).toEqual(['migrated']);
    for (const [file, text] of filesUnder(dir)) expect(text, file).not.toContain(SIGNIN_SECRET);
    for (const f of w.frames) expect(f).not.toContain(SIGNIN_SECRET);
  }, 120_000);
});
