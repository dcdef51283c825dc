// End to end in a real terminal: the built wizard runs in a detached tmux session (80x24), driven with
// `tmux send-keys` and read with `tmux capture-pane`, from creating a profile to a finished sandbox migration.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProfile, profilePaths } from '../../src/profiles/index.js';
import { TMUX, tmuxDriver } from './tmux-driver.js';
import { API_KEY, CANONICAL, fixtureSecrets, HASH_CONFIG_TEXT, LICENSE_KEY, PASSWORDS, SIGNER_KEY } from '../support/fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'am-tmux-'));
const socket = join(dir, 'tmux.sock');
const configDir = join(dir, 'config');
const store = join(dir, 'store.json');
const drv = tmuxDriver(socket);
const { capture, until, untilScreen, press, type } = drv;
afterAll(async () => {
  if (TMUX) await drv.close();
  rmSync(dir, { recursive: true, force: true });
});

const footerRow = (screen: string) => screen.split('\n').findIndex((l) => l.startsWith('v verify'));

async function waitForChange(before: string, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await capture()) === before) {
    if (Date.now() > deadline) throw new Error(`the screen did not change after ${what}\n--- screen ---\n${before}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const launch = (args: string[] = [], env: Record<string, string> = {}): Promise<void> =>
  drv.launch(args, { cwd: dir, env: { AUTH_MIGRATE_CONFIG_DIR: configDir, ...env }, columns: 80, rows: 24 });

if (!TMUX) console.warn('wizard-tmux.test: tmux is not installed (not on PATH nor /usr/bin/tmux): the end-to-end wizard test is skipped');

describe('the wizard in tmux', () => {
  it.skipIf(!TMUX)('creates a profile and migrates a fixture into the sandbox, adapting to resizes', async () => {
    await launch();
    await until('+ new profile');
    await press('n');
    await until('New profile name');
    await type('e2e-night');
    await press('Enter');
    await until('2/8 keys · profile e2e-night');

    await type(API_KEY);
    await until('✓ 30 chars');
    await press('Down', 'Right');
    await until('[secrets file (0600)]');
    await press('Down');
    await type(LICENSE_KEY);
    // The licence key is to be read from an environment variable next time: only its name is kept.
    await press('Down', 'Right', 'Right');
    await until('[env variable]');
    await press('Down');
    const before = await capture();
    await drv.sendKeys('-N', String('AUTH_MIGRATE_LICENSE_KEY'.length), 'BSpace');
    await waitForChange(before, 'clearing the variable name');
    await type('E2E_LICENSE');
    await until(/variable \$\s+E2E_LICENSE\b/);
    await press('Down', 'Down', 'Down', 'Down', 'Down', 'Enter');
    await until('3/8 source files');

    // Tab completion of the fixture path, then its detected format.
    await type(CANONICAL.replace(/json$/, ''));
    await press('Tab');
    await until(CANONICAL);
    await press('Enter');
    await until('[canonical]');
    // The hash parameters pasted as the console shows them (several lines, one paste).
    await press('Down', 'Down');
    writeFileSync(join(dir, 'paste.txt'), HASH_CONFIG_TEXT);
    await drv.paste(join(dir, 'paste.txt'));
    await until('signer key set');
    await press('Down', 'Down', 'Enter');
    await until(/records 6 · valid 6/);

    // One record's details and a password spot-check.
    await press('Enter');
    await until('id c-ada');
    await press('s');
    await type(PASSWORDS.ada);
    await press('Enter');
    await until('spot-check: match');
    // esc closes the record (the password field closed when it was submitted).
    await press('Escape');
    await until('c continue');
    await press('c');
    await until('5/8 target');

    await press('Down');
    await type(store);
    await press('Down', 'Enter');
    const target = await until('preflight passed', 30_000);
    const url = /url\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(target)?.[1];
    expect(url).toBeDefined();
    expect(target).toContain(`store ${store}`);
    expect(target).toMatch(/✓ api key\s+accepted/);

    await press('c');
    await until(/6 users to migrate in \d+ calls/);
    await press('d');
    await until('dry run: nothing was written');
    await press('r');
    const results = await until('8/8 results: finished', 60_000);
    expect(results).toMatch(/total 6 · imported 6 · already present 0 · failed 0 · skipped 0/);

    // The sandbox store holds the users (asked through the URL shown on screen, while the wizard runs).
    const res = await fetch(`${url}/users?limit=100`, { headers: { 'api-key': API_KEY } });
    const users = ((await res.json()) as { users: { loginMethods: { email?: string }[] }[] }).users;
    const emails = users.flatMap((u) => u.loginMethods.map((m) => m.email));
    for (const who of ['ada', 'bob', 'cy', 'dee', 'eve']) expect(emails).toContain(`${who}@example.com`);

    // Resizing: the frame is redrawn to the new size (its footer sits on the last row but one).
    expect(footerRow(results)).toBe(22);
    for (const [columns, rows] of [
      [100, 30],
      [60, 20],
      [80, 24],
    ] as const) {
      await drv.resize(columns, rows);
      // Ink redraws after a resize; wait for the whole frame: title on the first row, footer ending on the last but one.
      // At 60 columns the key help wraps onto two rows, whole.
      const fits = (s: string) =>
        footerRow(s) === rows - (columns < 70 ? 3 : 2) &&
        /^auth-migrate · 8\/8 results/.test(s.split('\n')[0]!) &&
        /imported 6/.test(s) &&
        Math.max(...s.split('\n').map((l) => l.length)) <= columns;
      await untilScreen(fits, `the results frame redrawn at ${columns}x${rows}`);
    }

    // One sign-in check on the results screen: the password typed masked, the core's answer shown.
    await press('i');
    await until('sign in on http://127.0.0.1');
    await type('cy@example.com');
    await press('Down');
    await type(PASSWORDS.cy);
    const masked = await until('•'.repeat(PASSWORDS.cy.length));
    expect(masked).not.toContain(PASSWORDS.cy);
    await press('Enter');
    const signedIn = await until(/cy@example\.com signed in\s*\n\s+user \S+, 1 login method/);
    expect(signedIn).not.toContain(PASSWORDS.cy);
    await press('Escape');
    expect(footerRow(await until(/^v verify · i sign in/m))).toBe(22);

    await press('s');
    await until('profile saved in');
    await press('q');
    await until('EXIT CODE 0');
    // The sandbox was stopped and its store file kept where the screen said.
    expect(existsSync(store)).toBe(true);

    const paths = profilePaths({ AUTH_MIGRATE_CONFIG_DIR: configDir });
    expect(statSync(paths.profiles).mode & 0o777).toBe(0o600);
    expect(statSync(paths.secrets).mode & 0o777).toBe(0o600);
    const saved = await loadProfile('e2e-night', { AUTH_MIGRATE_CONFIG_DIR: configDir });
    // The signer key came with the pasted hash parameters: kept in the 0600 secrets file (issue 33 point 8), never
    // in the profiles file.
    expect(saved.secrets).toEqual({ apiKey: API_KEY, signerKey: SIGNER_KEY });
    expect(saved.profile.secrets).toEqual({
      apiKey: { store: 'file' },
      licenseKey: { store: 'env', name: 'E2E_LICENSE' },
      signerKey: { store: 'file' },
    });
    expect(saved.missing).toEqual(['licenseKey']);
    expect(saved.profile.hashConfig).toEqual({ algorithm: 'SCRYPT', saltSeparator: 'Bw==', rounds: 8, memCost: 14 });
    for (const s of fixtureSecrets()) expect(readFileSync(paths.profiles, 'utf8')).not.toContain(s);

    // Next time: the stored api key and signer key are there; the licence key comes from $E2E_LICENSE, or is asked
    // for when unset.
    await drv.kill();
    await launch(['--profile', 'e2e-night']);
    const unset = await until('2/8 keys · profile e2e-night');
    expect(unset).toMatch(/api key\s+•+\s+✓ 30 chars/);
    expect(unset).toContain('not found ($E2E_LICENSE unset)');
    expect(unset).toMatch(/signer key\s+•+\s+✓ 88 chars/);
    await press('C-c');
    await until('EXIT CODE 0');
    await drv.kill();
    await launch(['--profile', 'e2e-night'], { E2E_LICENSE: LICENSE_KEY });
    const set = await until('2/8 keys · profile e2e-night');
    expect(set).toMatch(/licence key\s+•+\s+✓ 23 chars/);
    expect(set).toContain('[env variable]');
    expect(set).not.toContain(LICENSE_KEY);
    await press('C-c');
    await until('EXIT CODE 0');
  });
});
