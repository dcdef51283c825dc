import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CoreConfigError, CoreHttpError } from '../../src/core-client/errors.js';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { describeSignInError } from '../../src/ui/services/sign-in.js';
import type { SandboxHandle, TargetConnection } from '../../src/ui/services/types.js';
import { reducer } from '../../src/ui/state/reducer.js';
import { describeEntry } from '../../src/ui/screens/SignInPanel.js';
import { API_KEY, LICENSE_KEY, PASSWORDS, SIGNER_KEY } from '../support/fixture.js';
import { renderWizard } from './harness.js';
import { migrated } from './migrated.js';

describe('sign-in check: what the screen says', () => {
  it('a missing signer key is said plainly; other errors keep their message', () => {
    const missing = new CoreConfigError(
      "java.lang.IllegalStateException: 'firebase_password_hashing_signer_key' cannot be null",
      'POST',
      '/recipe/signin',
      'http://core',
    );
    expect(describeSignInError(missing)).toMatch(
      /^the core has no signer key, so it cannot check scrypt \(Firebase\) passwords \(HTTP 500\)/,
    );
    const other = new CoreHttpError(500, 'java.lang.NullPointerException', 'POST', '/recipe/signin');
    expect(describeSignInError(other)).toBe('core answered HTTP 500 to POST /recipe/signin: java.lang.NullPointerException');
  });

  it('each kind of check becomes one line, and a detail line for errors and failing emails', () => {
    expect(describeEntry({ kind: 'single', email: 'a@x', outcome: { status: 'signed-in', userId: 'u1', loginMethods: 1 } })).toEqual({
      ok: true,
      text: 'a@x signed in',
      detail: 'user u1, 1 login method',
    });
    expect(describeEntry({ kind: 'single', email: 'a@x', outcome: { status: 'signed-in', userId: 'u1', loginMethods: 3 } }).detail).toBe(
      'user u1, 3 login methods',
    );
    expect(describeEntry({ kind: 'single', email: 'a@x', outcome: { status: 'wrong-credentials' } }).ok).toBe(false);
    expect(describeEntry({ kind: 'single', email: 'a@x', outcome: { status: 'error', error: 'boom' } })).toEqual({
      ok: false,
      text: 'a@x: error',
      detail: 'boom',
    });
    expect(
      describeEntry({ kind: 'file', path: 'c', result: { checked: 2, ok: 1, failed: [{ email: 'b@x', status: 'wrong credentials' }] } }),
    ).toEqual({
      ok: false,
      text: 'c: 1/2 signed in, 1 failed',
      detail: 'failed: b@x (wrong credentials)',
    });
    expect(describeEntry({ kind: 'file', path: 'c', result: { checked: 0, ok: 0, failed: [] } }).ok).toBe(false);
    const failed = Array.from({ length: 5 }, (_, i) => ({ email: `u${i}@x`, status: 'wrong credentials' }));
    expect(describeEntry({ kind: 'file', path: 'c', result: { checked: 5, ok: 0, failed } }).detail).toBe(
      'failed: u0@x (wrong credentials), u1@x (wrong credentials), u2@x (wrong credentials), and 2 more',
    );
  });
});

let dir: string;
let env: NodeJS.ProcessEnv;
const sandboxes: SandboxHandle[] = [];
const unmounts: (() => void)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-signin-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
});
afterEach(async () => {
  for (const u of unmounts.splice(0)) u();
  await Promise.all(sandboxes.splice(0).map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** Every 8-character slice of a secret, and the secret itself: a cut or truncated secret still shows. */
function slices(secret: string): string[] {
  const out = [secret];
  for (let i = 0; i + 8 <= secret.length; i += 2) out.push(secret.slice(i, i + 8));
  return out;
}

function checkFrames(frames: string[], secrets: string[]) {
  for (const frame of frames) {
    const lines = stripVTControlCharacters(frame).replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  }
  const all = frames.join('\n');
  for (const secret of secrets)
    for (const s of slices(secret)) expect(all.includes(s), `a password slice "${s.slice(0, 2)}…" was rendered`).toBe(false);
}

describe('sign-in check on the results screen, against a real sandbox', () => {
  it('a right password signs in, a wrong one is refused, a credentials file is counted, and no frame shows a password', async () => {
    await saveProfile(emptyProfile('night'), {}, env);
    const services = createRealServices({ env, cwd: dir });
    const { state, target } = await migrated(services, {
      store: join(dir, 'store.json'),
      signerKey: SIGNER_KEY,
      track: (s) => sandboxes.push(s),
    });
    const w = renderWizard(services, undefined, { columns: 80, rows: 24 }, state);
    unmounts.push(w.unmount);
    const wrong = 'Wr0ng-Guess-7qZx-kept-out';
    const credentials = join(dir, 'credentials.txt');
    writeFileSync(
      credentials,
      `# email,password\nada@example.com,${PASSWORDS.ada}\nbob@example.com,${wrong}\ncy@example.com,${PASSWORDS.cy}\n`,
    );

    const results = await w.until('8/8 results: finished');
    expect(results).toContain('i sign in');
    await w.press('i');
    await w.until('sign in on http://127.0.0.1');
    await w.press('ada@example.com', 'down', PASSWORDS.ada);
    await w.until('•'.repeat(PASSWORDS.ada.length));
    await w.press('enter');
    const signedInLine = /ada@example\.com signed in\s*\n\s+user (\S+), (\d+) login methods?/;
    const signedIn = await w.until(signedInLine);
    const [, userId, methods] = signedInLine.exec(signedIn)!;
    // The id and the count are the core's: read the same user over HTTP.
    const res = await fetch(`${target.url}/users?limit=100`, { headers: { 'api-key': API_KEY } });
    const users = ((await res.json()) as { users: { id: string; loginMethods: { email?: string }[] }[] }).users;
    const ada = users.find((u) => u.loginMethods.some((m) => m.email === 'ada@example.com'))!;
    expect([userId, Number(methods)]).toEqual([ada.id, ada.loginMethods.length]);
    // The password field is emptied at once and the email asked for again.
    expect(signedIn).not.toContain('•'.repeat(PASSWORDS.ada.length));

    await w.press('ada@example.com', 'down', wrong, 'enter');
    await w.until('ada@example.com: wrong credentials (the core refused them)');
    // A Firebase scrypt password, checked by the core with its signer key.
    await w.press('cy@example.com', 'down', PASSWORDS.cy, 'enter');
    await w.until(/cy@example\.com signed in\s*\n\s+user [0-9a-f-]{36}, 1 login method/);
    // Letters typed in the fields are text, not commands (q does not quit, s does not save).
    expect(w.frame()).not.toContain('profile saved');

    await w.press('up', credentials, 'enter');
    const file = await w.until('2/3 signed in, 1 failed');
    expect(file).toContain('failed: bob@example.com (wrong credentials)');
    // The earlier checks are still listed above it.
    expect(file).toContain('ada@example.com: wrong credentials');

    await w.press('escape');
    const back = await w.until('v verify · i sign in');
    expect(back).toMatch(/run folder \S+\n\s+journal\.ndjson · report\.ndjson · failures\.ndjson/);
    await w.press('i');
    await w.until('2/3 signed in, 1 failed');
    await w.press('down', 'down', join(dir, 'missing.txt'), 'enter');
    await w.until(/missing\.txt: error/);
    expect(w.frame()).toMatch(/cannot read .*missing\.txt \(ENOENT\)/);

    checkFrames(w.frames, [PASSWORDS.ada, PASSWORDS.cy, wrong]);
  });

  it('a core without the signer key: the scrypt password check says so plainly', async () => {
    await saveProfile(emptyProfile('night'), {}, env);
    const services = createRealServices({ env, cwd: dir });
    const store = join(dir, 'store.json');
    const { state } = await migrated(services, { store, signerKey: SIGNER_KEY, track: (s) => sandboxes.push(s) });
    // The same store served by a core started without the signer key.
    await sandboxes.pop()!.stop();
    const bare = await services.startSandbox({ store, apiKey: API_KEY, licenseKey: LICENSE_KEY });
    sandboxes.push(bare);
    const target: TargetConnection = { url: bare.url, apiKey: API_KEY, licenseKey: LICENSE_KEY, sandbox: { storePath: store } };
    const w = renderWizard(services, undefined, { columns: 80, rows: 24 }, reducer(state, { type: 'target-ready', target }));
    unmounts.push(w.unmount);

    await w.until('8/8 results: finished');
    await w.press('i');
    await w.until(`sign in on ${bare.url}`);
    await w.press('cy@example.com', 'down', PASSWORDS.cy, 'enter');
    await w.until('cy@example.com: error');
    await w.until('the core has no signer key, so it cannot check scrypt');
    // A bcrypt password needs no signer key: the same core signs ada in.
    await w.press('ada@example.com', 'down', PASSWORDS.ada, 'enter');
    await w.until(/ada@example\.com signed in\s*\n\s+user \S+, 1 login method/);
    checkFrames(w.frames, [PASSWORDS.ada, PASSWORDS.cy]);
  });
});
