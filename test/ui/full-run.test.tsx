import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyProfile, loadProfile, profilePaths, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { API_KEY, CANONICAL, fixtureSecrets, LICENSE_KEY, SIGNER_KEY } from '../support/fixture.js';
import { renderWizard, trackSandboxes, waitFor } from './harness.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let stopSandbox: (() => Promise<unknown>) | undefined;
let sandboxes: ReturnType<typeof trackSandboxes> | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-fullrun-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
});
afterEach(async () => {
  await stopSandbox?.();
  await sandboxes?.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

/** Every 8-character slice of every secret: a secret cut by a line end or truncation still shows. */
function secretSlices(): string[] {
  const slices = new Set<string>();
  for (const s of fixtureSecrets()) for (let i = 0; i + 8 <= s.length; i += 4) slices.add(s.slice(i, i + 8));
  return [...slices];
}

describe('the wizard from keys to a finished sandbox migration', () => {
  it('migrates the canonical fixture into a real sandbox, verifies it, saves the profile, and never shows a secret', async () => {
    await saveProfile(emptyProfile('night'), {}, env);
    sandboxes = trackSandboxes(createRealServices({ env, cwd: dir }));
    const w = renderWizard(sandboxes.services, 'night', { columns: 80, rows: 24 });
    let quitSent = false;
    stopSandbox = async () => {
      if (!quitSent) await w.press('q');
      w.unmount();
    };

    await w.until('2/8 keys · profile night');
    await w.press(API_KEY, 'down', 'right');
    await w.until('[secrets file (0600)]');
    await w.press('down', LICENSE_KEY, 'down', 'down', SIGNER_KEY, 'down', 'down', 'down', 'down');
    await w.until('› continue to the source files');
    await w.press('enter');
    await w.until('3/8 source files');
    await w.press(CANONICAL, 'enter');
    await w.until('[canonical]');
    await w.press('down', 'down', 'down', 'down', 'enter');
    await w.until(/records 6 · valid 6/);
    await w.press('c');
    await w.until('5/8 target');
    const store = join(dir, 'sandbox-store.json');
    await w.press('down', store, 'down', 'enter');
    const preflight = await w.until('preflight passed', 30_000);
    expect(preflight).toMatch(/✓ api key\s+accepted/);
    expect(preflight).toMatch(/features\s+.*mfa/);
    const url = /url\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(preflight)![1]!;
    expect(preflight).toContain(`store ${store}`);
    await w.press('c');
    const plan = await w.until('users to migrate');
    expect(plan).toMatch(/6 users to migrate in \d+ calls to the sandbox/);
    expect(plan).toContain('× POST /recipe/totp/device/import');
    await w.press('right');
    await w.until('concurrency      32 users at a time');
    await w.press('r');
    const results = await w.until('8/8 results: finished', 60_000);
    expect(results).toMatch(/total 6 · imported 6 · already present 0 · failed 0 · skipped 0/);
    // Its own run folder, named for the profile and the time, with every file the screen lists.
    const folder = /run folder (\S+)/.exec(results)![1]!;
    expect(folder).toMatch(new RegExp(`^${dir}/night-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\dZ$`));
    expect(results).toContain('journal.ndjson · report.ndjson · failures.ndjson');
    for (const f of ['journal.ndjson', 'report.ndjson', 'failures.ndjson']) expect(existsSync(join(folder, f))).toBe(true);
    await w.press('v');
    await w.until('verify: 6/6 users ok, 0 with problems, 0 skipped by the run (TOTP codes checked)', 30_000);
    await w.press('s');
    await w.until('profile saved in');

    // The core holds the users.
    const res = await fetch(`${url}/users?limit=100`, { headers: { 'api-key': API_KEY } });
    const body = (await res.json()) as { users: { loginMethods: { email?: string }[] }[] };
    const emails = body.users.flatMap((u) => u.loginMethods.map((m) => m.email)).filter(Boolean);
    for (const who of ['ada', 'bob', 'cy', 'dee', 'eve']) expect(emails).toContain(`${who}@example.com`);

    // The saved profile: 0600 files, the api key stored (as chosen), the others not.
    const paths = profilePaths(env);
    expect(statSync(paths.profiles).mode & 0o777).toBe(0o600);
    expect(statSync(paths.secrets).mode & 0o777).toBe(0o600);
    const saved = await loadProfile('night', env);
    expect(saved.secrets).toEqual({ apiKey: API_KEY });
    expect(saved.profile.sources).toEqual([{ path: CANONICAL, format: 'canonical' }]);
    expect(saved.profile.target).toEqual({ kind: 'sandbox', store });
    expect(saved.profile.concurrency).toBe(32);
    expect(readFileSync(paths.profiles, 'utf8')).not.toContain(API_KEY);

    // q stops the sandbox and leaves.
    quitSent = true;
    await w.press('q');
    await waitFor(
      () =>
        fetch(`${url}/hello`).then(
          () => false,
          () => true,
        ),
      'the sandbox to stop',
      15_000,
    );

    // Every frame of every screen fitted the 80x24 terminal.
    for (const frame of w.frames) {
      const lines = stripVTControlCharacters(frame).replace(/\n$/, '').split('\n');
      expect(lines.length).toBeLessThanOrEqual(24);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    }
    const frames = w.frames.join('\n');
    for (const slice of secretSlices()) expect(frames.includes(slice), `a secret slice "${slice.slice(0, 2)}…" was rendered`).toBe(false);
  });
});
