import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyProfile, loadProfile, profilePaths, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { API_KEY, CANONICAL, HASH_CONFIG_TEXT, PASSWORDS, REPO, SIGNER_KEY } from '../support/fixture.js';
import { keysToPreview, renderWizard, trackSandboxes, waitFor } from './harness.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let cleanup: (() => void)[] = [];
let sandboxes: ReturnType<typeof trackSandboxes>[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-screens-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
});
afterEach(async () => {
  for (const c of cleanup) c();
  cleanup = [];
  await Promise.all(sandboxes.map((s) => s.stopAll()));
  sandboxes = [];
  rmSync(dir, { recursive: true, force: true });
});

function start(opts: { env?: NodeJS.ProcessEnv; profile?: string } = {}) {
  const tracked = trackSandboxes(createRealServices({ env: { ...env, ...opts.env }, cwd: dir }));
  sandboxes.push(tracked);
  const w = renderWizard(tracked.services, opts.profile);
  cleanup.push(() => w.unmount());
  return w;
}

describe('wizard screens', () => {
  it('creates a profile, then checks keys as typed and never shows them', async () => {
    const w = start();
    await w.until('+ new profile');
    await w.press('n');
    await w.until('New profile name');
    await w.press('night');
    await w.press('enter');
    await w.until('keys · profile night');
    expect(statSync(profilePaths(env).profiles).mode & 0o777).toBe(0o600);

    await w.press('abc');
    await w.until('too short (3 of at least 20');
    expect(w.frame()).toContain('•••');
    await w.press('-0123456789abcdefgh');
    await w.until('✓ 22 chars');
    await w.press('down', 'right');
    await w.until('[secrets file (0600)]');
    await w.press('down', 'down', 'down');
    await w.press('not base64!!');
    await w.until('not standard base64');
    await w.press('down', 'down', 'down', 'down', 'enter');
    await w.until('signer key: not standard base64');
    // The last frame is still the keys screen: a bad key blocks the way on.
    expect(w.frame()).toContain('2/8 keys');
    for (const f of w.frames) {
      expect(f).not.toContain('abc-0123456789abcdefgh');
      expect(f).not.toContain('not base64!!');
    }
  });

  it('a profile saved without secrets asks for them; a secret named by env var is read from it', async () => {
    const p = emptyProfile('prod');
    p.secrets.licenseKey = { store: 'env', name: 'PROD_LICENSE' };
    await saveProfile(p, { apiKey: API_KEY, licenseKey: 'licence-from-typing' }, env);
    expect((await loadProfile('prod', env)).secrets).toEqual({});

    const asked = start({ profile: 'prod' });
    await asked.until('keys · profile prod');
    expect(asked.frame()).toMatch(/api key\s+not set/);
    expect(asked.frame()).toContain('not found ($PROD_LICENSE unset)');
    asked.unmount();

    const fromEnv = start({ profile: 'prod', env: { PROD_LICENSE: 'licence-from-env-42' } });
    await fromEnv.until('keys · profile prod');
    await fromEnv.until('✓ 19 chars');
    expect(fromEnv.frame()).toMatch(/api key\s+not set/);
    expect(fromEnv.frame()).toContain('[env variable]');
    expect(fromEnv.frames.join('\n')).not.toContain('licence-from-env-42');
  });

  it('source: Tab completes the path, shows the detected format, takes the pasted hash parameters; preview, filter, details, spot-check', async () => {
    await saveProfile(emptyProfile('p'), {}, env);
    const w = start({ profile: 'p' });
    await w.until('keys · profile p');
    await w.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press(`${REPO}fixtures/canonical/users.nd`);
    await w.press('tab');
    await w.until(CANONICAL);
    await w.press('enter');
    await w.until('[canonical]');
    expect(w.frame()).toContain(CANONICAL);
    // Change the format and back: ←/→ on the file row.
    await w.press('down', 'right');
    await w.until('[firebase]');
    await w.press('left');
    await w.until('[canonical]');
    await w.press('down');
    w.stdin.write(HASH_CONFIG_TEXT);
    await w.until('salt separator Bw== · rounds 8 · mem_cost 14 · signer key set');
    // A provider map entry: source id = third-party id (the fixture's github user becomes "gh").
    await w.press('down', 'bad pair', 'enter');
    await w.until('write the provider map as source=target pairs');
    for (let i = 0; i < 'bad pair'.length; i += 1) await w.press('backspace');
    await w.press('github=gh', 'enter');
    await w.until('provider map: github=gh');
    await w.press('down', 'enter');
    await w.until('4/8 preview');
    // Moving on kept the sources, format, hash parameters and provider map in the profile, without `s`; the
    // signer key from the pasted block is not stored (the profile keeps no secret unless told to).
    const kept = await waitFor(async () => {
      const { profile } = await loadProfile('p', env);
      return profile.sources.some((s) => s.path === CANONICAL) && profile.providerMap?.github === 'gh' ? profile : undefined;
    }, 'the profile to be saved when moving to the preview');
    expect(kept.sources).toEqual([expect.objectContaining({ path: CANONICAL, format: 'canonical' })]);
    expect(kept.hashConfig).toMatchObject({ saltSeparator: 'Bw==', rounds: 8, memCost: 14 });
    expect(JSON.stringify(kept)).not.toContain(SIGNER_KEY);
    await w.until(/records 6 · valid 6/);
    expect(w.frame()).toMatch(/passwords bcrypt 2 argon2 1 scrypt 1/);
    expect(w.frame()).toMatch(/c-ada\s+ada@example.com\s+password\s+bcrypt\s+totp×1/);
    await w.press('f');
    await w.until('no records match the filter (errors)');
    await w.press('f', 'f');
    await w.until('f filter (all)');
    await w.press('enter');
    await w.until('id c-ada');
    expect(w.frame()).toContain('password bcrypt hash (hidden');
    await w.press('s');
    await w.until('type the password');
    await w.press(PASSWORDS.ada);
    await w.press('enter');
    await w.until('spot-check: match');
    // The external scrypt user checks with the signer key taken from the pasted block.
    await w.press('escape');
    await w.until('c continue');
    await w.press('down', 'down', 'enter', 's');
    await w.until('id c-cy');
    await w.press(PASSWORDS.cy, 'enter');
    await w.until('spot-check: match');
    const all = w.frames.join('\n');
    expect(all).not.toContain(SIGNER_KEY);
    expect(all).not.toContain(PASSWORDS.ada);
    expect(all).not.toContain(PASSWORDS.cy);
  });
});

describe('target screen against a remote core', () => {
  it('shows the preflight refusing a wrong api key and does not let the plan start', async () => {
    const { startSandbox } = await import('../../src/sandbox/spawn.js');
    const core = await startSandbox({ apiKeys: [API_KEY] });
    cleanup.push(() => void core.stop());
    await saveProfile(
      { ...emptyProfile('remote'), sources: [{ path: CANONICAL, format: 'canonical' }], target: { kind: 'remote', url: core.url } },
      {},
      env,
    );
    const w = start({ profile: 'remote' });
    await w.until('2/8 keys');
    await w.press('wrong-key-0123456789-abcdef', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press('down', 'down', 'down', 'down', 'enter');
    await w.until(/records 6 · valid 6/);
    await w.press('c');
    await w.until('[remote core]');
    expect(w.frame()).toContain(core.url);
    await w.press('down', 'down', 'down', 'down', 'enter');
    const refused = await w.until('preflight failed: fix the problem named below', 30_000);
    expect(refused).toMatch(/✓ hello/);
    expect(refused).toMatch(/✗ api key\s+refused \(401\)/);
    await w.press('c');
    await w.until('the preflight found a problem');
    expect(w.frame()).toContain('5/8 target');
    expect(w.frames.join('\n')).not.toContain('wrong-key-0123456789-abcdef');
  });
});

describe('profile screen', () => {
  it('duplicates, renames and deletes profiles (with their stored secrets)', async () => {
    const p = emptyProfile('alpha');
    p.secrets.apiKey = { store: 'file' };
    await saveProfile(p, { apiKey: API_KEY }, env);
    const w = start();
    await w.until('alpha');
    await w.press('down', 'd');
    await w.until('Copy alpha as: alpha-copy');
    await w.press('enter');
    await w.until('alpha-copy');
    await w.press('down', 'r');
    await w.until('Rename alpha-copy to:');
    for (let i = 0; i < 'alpha-copy'.length; i += 1) await w.press('backspace');
    await w.press('beta', 'enter');
    await w.until(/› beta/);
    expect((await loadProfile('beta', env)).secrets.apiKey).toBe(API_KEY);
    await w.press('up', 'x');
    await w.until('Delete profile alpha and its stored secrets? (y/esc)');
    await w.press('escape');
    await w.until('n new');
    expect(w.frame()).toContain('alpha');
    await w.press('x');
    await w.until('Delete profile alpha');
    await w.press('y');
    await waitFor(() => !w.frame().includes('alpha') && w.frame(), 'alpha to disappear');
    await expect(loadProfile('alpha', env)).rejects.toThrow(/no profile named/);
    expect(w.frames.join('\n')).not.toContain(API_KEY);
  });
});

describe('target screen with a sandbox without a licence', () => {
  it('blocks before any write, as headless run does, when the data needs TOTP and linking the core has no licence for', async () => {
    await saveProfile({ ...emptyProfile('nolic'), sources: [{ path: CANONICAL, format: 'canonical' }] }, {}, env);
    const w = start({ profile: 'nolic' });
    await w.until('2/8 keys');
    await w.press('down', 'down', 'down', 'down', SIGNER_KEY, 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press('down', 'down', 'down', 'down', 'enter');
    await w.until(/records 6 · valid 6/);
    await w.press('c');
    await w.until('[sandbox]');
    await w.press('down', 'down', 'enter');
    const screen = await w.until('preflight failed', 30_000);
    const url = /url\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(screen)![1]!;
    // The same findings, at the same level, as `run` (migration/target-check.ts): errors for what the data needs.
    expect(screen).toMatch(/error: the core has no licence for MFA/);
    expect(screen).toMatch(/error: the core has no licence for account linking/);
    expect(screen).toMatch(/features\s+none \(no licence\)/);
    // c does not go on to the plan: the run would surely stop.
    await w.press('c');
    expect(await w.until('the preflight found a problem that would stop the run')).not.toContain('users to migrate');
    // Nothing was written: the core holds no user.
    const users = (await (await fetch(`${url}/users`)).json()) as { users: unknown[] };
    expect(users.users).toEqual([]);
    // Ctrl+C leaves through the same door as q: the sandbox is stopped.
    await w.press('\u0003');
    await waitFor(
      () =>
        fetch(`${url}/hello`).then(
          () => false,
          () => true,
        ),
      'the sandbox to stop',
    );
  });
});

describe('preview of cross-record problems', () => {
  it('marks the earlier record of a duplicate too, once the whole file is read', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const ada = readFileSync(CANONICAL, 'utf8').split('\n')[0]!;
    const file = join(dir, 'dup.ndjson');
    writeFileSync(
      file,
      `${ada}\n${JSON.stringify({ id: 'twin', email: 'twin@example.com', externalUserId: JSON.parse(ada).externalUserId, password: JSON.parse(ada).password })}\n`,
    );
    await saveProfile({ ...emptyProfile('dup'), sources: [{ path: file, format: 'canonical' }] }, {}, env);
    const w = start({ profile: 'dup' });
    await keysToPreview(w);
    const preview = await w.until('records 2 · valid 0 · invalid 2');
    expect(preview).toMatch(/c-ada\s+ada@example.com.*1 error/);
    expect(preview).toMatch(/twin\s+twin@example.com.*1 error/);
    await w.press('enter');
    await w.until('invalid: will be skipped');
    expect(w.frame()).toMatch(/externalUserId/);
    await w.press('escape');
    await w.until('c continue');
    await w.press('c');
    await w.until('no valid record to migrate');
  });
});

describe('keys kept as environment variable names', () => {
  it('reads the named variable when the key was not typed, and never shows it', async () => {
    await saveProfile(emptyProfile('envy'), {}, env);
    const w = start({ profile: 'envy', env: { MY_API: API_KEY } });
    await w.until('2/8 keys');
    await w.press('down', 'right', 'right');
    await w.until('[env variable]');
    await w.press('down');
    await w.until('not set in this shell');
    for (let i = 0; i < 'AUTH_MIGRATE_API_KEY'.length; i += 1) await w.press('backspace');
    await w.press('MY_API');
    await w.until('✓ set in this shell');
    await w.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press('escape');
    await w.until('2/8 keys');
    expect(w.frame()).toMatch(/api key\s+•+\s+✓ 30 chars/);
    expect(w.frames.join('\n')).not.toContain(API_KEY);
  });
});

describe('a truncated export', () => {
  it('says the file could not be read, c says what to do instead of waiting, and esc goes back to the sources', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const whole = readFileSync(CANONICAL.replace(/users\.ndjson$/, 'users.json'), 'utf8');
    const file = join(dir, 'cut.json');
    writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    await saveProfile({ ...emptyProfile('cut'), sources: [{ path: file, format: 'canonical' }] }, {}, env);
    const w = start({ profile: 'cut' });
    await keysToPreview(w);
    const screen = await w.until('could not be read to the end');
    expect(screen).toContain('esc back to the sources');
    expect(screen).not.toContain('wait for the validation');
    await w.press('c');
    await w.until('nothing can be migrated from them');
    await w.press('escape');
    await w.until('3/8 source files');
  });
});

describe('a file that cannot be added', () => {
  it('is named in the error and leaves the field empty, so the next path is not appended to it', async () => {
    await saveProfile(emptyProfile('bad-add'), {}, env);
    const w = start({ profile: 'bad-add' });
    await w.until('keys · profile bad-add');
    await w.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press(join(dir, 'no-such-export.json'), 'enter');
    await w.until(/no-such-export\.json: /);
    await w.press(CANONICAL, 'enter');
    const added = await w.until('[canonical]');
    expect(added).toContain(CANONICAL);
    expect(added).not.toContain(`no-such-export.json${CANONICAL}`);
  });
});

describe('lines that cannot be read as users', () => {
  it('are counted under the summary and listed one by one (file:line and why) on the lines filter, at 80x24', async () => {
    const bad = join(REPO, 'fixtures/broken/bad-lines.ndjson');
    const totp = join(REPO, 'fixtures/broken/totp-bad.csv');
    await saveProfile(
      {
        ...emptyProfile('lines'),
        sources: [
          { path: bad, format: 'canonical' },
          { path: totp, format: 'totp' },
        ],
      },
      {},
      env,
    );
    const tracked = trackSandboxes(createRealServices({ env, cwd: dir }));
    sandboxes.push(tracked);
    const w = renderWizard(tracked.services, 'lines', { columns: 80, rows: 24 });
    cleanup.push(() => w.unmount());
    await w.until('2/8 keys');
    await w.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press('down', 'down', 'down', 'down', 'down', 'enter');
    const summary = await w.until(/lines? could not be read as users: f/);
    const count = Number(/(\d+) lines? could not be read as users: f/.exec(summary)![1]);
    // The three bad NDJSON lines at least, and the CSV rows that match no user or do not parse.
    expect(count).toBeGreaterThanOrEqual(5);
    // f: errors, warnings, then the lines.
    await w.press('f', 'f', 'f');
    const listed = await w.until(`${count} lines could not be read as users (not migrated)`);
    expect(listed).toContain('f filter (lines)');
    // The whole frame fits: title, summary and footer are all there.
    expect(listed).toMatch(/^auth-migrate · 4\/8 preview/);
    expect(listed).toMatch(/records \d+ · valid 2/);
    for (const line of [2, 3, 4]) expect(listed.replace(/\n\s*/g, ' ')).toContain(`bad-lines.ndjson:${line}`);
    // ↓ scrolls to the CSV rows, each named by file and line.
    for (let i = 0; i < count; i += 1) await w.press('down');
    const later = await w.until('totp-bad.csv:');
    expect(later).toMatch(/error: \S*totp-bad\.csv:\d+/);
    for (const frame of w.frames) expect(frame.split('\n').length).toBeLessThanOrEqual(24);
    // And back to the records.
    await w.press('f');
    await w.until('f filter (all)');
  });
});
