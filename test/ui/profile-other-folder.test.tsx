// Issue 33 point 8: a profile made in one folder and reused from another finds its sandbox store and source files
// (saved absolute), and keeps the signer key that came with the pasted hash parameters (in the 0600 secrets file,
// never in the profiles file). Two wizards with real services, each started in its own folder.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProfile, profilePaths } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { HASH_CONFIG_TEXT, REPO, SIGNER_KEY } from '../support/fixture.js';
import { renderWizard, trackSandboxes, waitFor } from './harness.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let sandboxes: ReturnType<typeof trackSandboxes>[] = [];
let unmounts: (() => void)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-folders-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
  for (const f of ['first', 'second']) mkdirSync(join(dir, f));
});
afterEach(async () => {
  for (const u of unmounts) u();
  for (const s of sandboxes) await s.stopAll();
  unmounts = [];
  sandboxes = [];
  rmSync(dir, { recursive: true, force: true });
});

function wizardIn(folder: string, profile?: string) {
  const s = trackSandboxes(createRealServices({ env, cwd: join(dir, folder) }));
  sandboxes.push(s);
  const w = renderWizard(s.services, profile, { columns: 100, rows: 30 });
  unmounts.push(w.unmount);
  return w;
}

describe('a profile reused from another folder', () => {
  it('finds its store and files, and keeps the signer key from the hash parameters', async () => {
    const firebase = join(dir, 'first', 'users.json');
    copyFileSync(join(REPO, 'fixtures', 'firebase', 'export.json'), firebase);
    // Made in first/: the export and the store named relative to it, the hash parameters pasted.
    const w = wizardIn('first');
    await w.until('+ new profile');
    await w.press('n', 'reuse', 'enter');
    await w.until('2/8 keys · profile reuse');
    await w.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    await w.until('3/8 source files');
    await w.press('users.json', 'enter');
    await w.until('[firebase]');
    await w.press('down', 'down');
    await w.until('› hash params');
    await w.press(HASH_CONFIG_TEXT.trim(), 'enter');
    await w.until('signer key set');
    await w.press('down', 'down', 'enter');
    await w.until(/records \d+ · valid/);
    await w.press('c');
    await w.until('5/8 target');
    await w.press('down', 'store.json', 'down', 'enter');
    let s = await w.until(/preflight (passed|failed)/, 30_000);
    expect(s).toContain(`store ${join(dir, 'first', 'store.json')}`);
    // Ctrl-C on the target screen: the store just chosen is saved too.
    await w.press('\u0003');
    const saved = await waitFor(async () => {
      const p = await loadProfile('reuse', env);
      return p.profile.target.kind === 'sandbox' && p.profile.target.store !== undefined && p;
    }, 'the profile saved with its store');

    // What was saved: absolute paths; the signer key in the secrets file only, 0600.
    expect(saved.profile.sources[0]!.path).toBe(firebase);
    expect(saved.profile.target).toEqual({ kind: 'sandbox', store: join(dir, 'first', 'store.json') });
    expect(saved.secrets.signerKey).toBe(SIGNER_KEY);
    const files = profilePaths(env);
    expect(readFileSync(files.profiles, 'utf8')).not.toContain(SIGNER_KEY);
    expect(statSync(files.secrets).mode & 0o777).toBe(0o600);

    // Opened in second/: the same store and files, and the signer key is there without pasting again.
    const v = wizardIn('second', 'reuse');
    await v.until('2/8 keys · profile reuse');
    s = await v.until(/signer key\s+•+/);
    await v.press('down', 'down', 'down', 'down', 'down', 'down', 'down', 'down', 'enter');
    s = await v.until('3/8 source files');
    expect(s).toContain(firebase);
    expect(s).toContain('signer key set');
    await v.press('down', 'down', 'down', 'down', 'enter');
    s = await v.until(/records \d+ · valid/);
    await v.press('c');
    await v.until('5/8 target');
    await v.press('down', 'down', 'enter');
    s = await v.until(/preflight (passed|failed)/, 30_000);
    expect(s).toContain(`store ${join(dir, 'first', 'store.json')}`);
    await v.press('\u0003');
  }, 90_000);
});
