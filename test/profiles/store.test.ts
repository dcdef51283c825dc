import { mkdtempSync, rmSync, statSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  deleteProfile,
  duplicateProfile,
  emptyProfile,
  listProfiles,
  loadProfile,
  profilePaths,
  renameProfile,
  saveProfile,
  withHashConfig,
  type Profile,
} from '../../src/profiles/index.js';

const API_KEY = 'apikey-0123456789abcdefXYZ';
const SIGNER = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';

let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-profiles-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function sample(name: string): Profile {
  return {
    ...emptyProfile(name),
    target: { kind: 'remote', url: 'https://core.example.com/base', tenant: 't1', app: 'a1' },
    sources: [{ path: '/data/users.json', format: 'firebase' }],
    hashConfig: { algorithm: 'SCRYPT', saltSeparator: 'Bw==', rounds: 8, memCost: 14 },
    providerMap: { 'google.com': 'google' },
    concurrency: 8,
    keepSourceIds: true,
    scryptAlgorithmName: 'firebase_scrypt',
  };
}

describe('profiles store', () => {
  it('round-trips every non-secret field and lists by name', async () => {
    await saveProfile(sample('prod'), {}, env);
    await saveProfile(sample('a.b'), {}, env);
    const loaded = await loadProfile('prod', env);
    const { createdAt, updatedAt, ...rest } = loaded.profile;
    expect(rest).toEqual(sample('prod'));
    expect(typeof createdAt).toBe('string');
    expect(typeof updatedAt).toBe('string');
    // A dotted name is a name, not a property path.
    expect((await loadProfile('a.b', env)).profile.name).toBe('a.b');
    expect((await listProfiles(env)).map((p) => p.name)).toEqual(['a.b', 'prod']);
  });

  it('writes both files with mode 0600 and keeps secrets out of the profiles file', async () => {
    const p = sample('prod');
    p.secrets.apiKey = { store: 'file' };
    p.secrets.signerKey = { store: 'file' };
    await saveProfile(p, { apiKey: API_KEY, signerKey: SIGNER, licenseKey: 'not-kept-license' }, env);
    const paths = profilePaths(env);
    expect(statSync(paths.profiles).mode & 0o777).toBe(0o600);
    expect(statSync(paths.secrets).mode & 0o777).toBe(0o600);
    const profilesText = readFileSync(paths.profiles, 'utf8');
    expect(profilesText).not.toContain(API_KEY);
    expect(profilesText).not.toContain(SIGNER);
    const secretsText = readFileSync(paths.secrets, 'utf8');
    expect(secretsText).toContain(API_KEY);
    // The licence key was not chosen for storage: it must be nowhere.
    expect(secretsText + profilesText).not.toContain('not-kept-license');
    const loaded = await loadProfile('prod', env);
    expect(loaded.secrets).toEqual({ apiKey: API_KEY, signerKey: SIGNER });
    expect(loaded.missing).toEqual([]);
  });

  it('a profile saved without secrets has none next time; env-named secrets are read at load time', async () => {
    const p = sample('staging');
    p.secrets.apiKey = { store: 'env', name: 'STAGING_API_KEY' };
    await saveProfile(p, { apiKey: API_KEY, signerKey: SIGNER }, env);
    expect(readFileSync(profilePaths(env).secrets, 'utf8')).not.toContain(API_KEY);
    const without = await loadProfile('staging', env);
    expect(without.secrets).toEqual({});
    expect(without.missing).toEqual(['apiKey']);
    const withEnv = await loadProfile('staging', { ...env, STAGING_API_KEY: 'from-env-0123456789abcdef' });
    expect(withEnv.secrets).toEqual({ apiKey: 'from-env-0123456789abcdef' });
    expect(withEnv.missing).toEqual([]);
  });

  it('changing a secret from file to none removes it from the secrets file', async () => {
    const p = sample('prod');
    p.secrets.apiKey = { store: 'file' };
    await saveProfile(p, { apiKey: API_KEY }, env);
    // Saving again without giving the value keeps the stored one.
    await saveProfile(p, {}, env);
    expect((await loadProfile('prod', env)).secrets.apiKey).toBe(API_KEY);
    p.secrets.apiKey = { store: 'none' };
    await saveProfile(p, {}, env);
    expect(readFileSync(profilePaths(env).secrets, 'utf8')).not.toContain(API_KEY);
  });

  it('renames, duplicates (with stored secrets) and deletes', async () => {
    const p = sample('one');
    p.secrets.apiKey = { store: 'file' };
    await saveProfile(p, { apiKey: API_KEY }, env);
    await duplicateProfile('one', 'two', env);
    await renameProfile('one', 'three', env);
    expect((await listProfiles(env)).map((x) => x.name)).toEqual(['three', 'two']);
    expect((await loadProfile('two', env)).secrets.apiKey).toBe(API_KEY);
    expect((await loadProfile('three', env)).secrets.apiKey).toBe(API_KEY);
    await expect(loadProfile('one', env)).rejects.toThrow(/no profile named 'one'/);
    await expect(renameProfile('two', 'three', env)).rejects.toThrow(/already exists/);
    await deleteProfile('three', env);
    expect(readFileSync(profilePaths(env).secrets, 'utf8')).toContain('"two"');
    expect(readFileSync(profilePaths(env).secrets, 'utf8')).not.toContain('"three"');
    await expect(deleteProfile('three', env)).rejects.toThrow(/no profile/);
  });

  it('rejects unusable profile and environment variable names', async () => {
    await expect(saveProfile(sample('../evil'), {}, env)).rejects.toThrow(/not a usable profile name/);
    const p = sample('ok');
    p.secrets.apiKey = { store: 'env', name: '1BAD-NAME' };
    await expect(saveProfile(p, {}, env)).rejects.toThrow(/not an environment variable name/);
  });

  it('saves relative paths absolute (resolved from the folder it was saved in), so another folder finds them', async () => {
    const p = emptyProfile('rel');
    p.sources = [{ path: 'exports/users.json', format: 'firebase' }, { path: '/abs/other.json' }];
    p.target = { kind: 'sandbox', store: 'store.json' };
    await saveProfile(p, {}, env, '/srv/project');
    const { profile } = await loadProfile('rel', env);
    expect(profile.sources.map((s) => s.path)).toEqual(['/srv/project/exports/users.json', '/abs/other.json']);
    expect(profile.target).toEqual({ kind: 'sandbox', store: '/srv/project/store.json' });
  });

  it('keeps the signer key that came with hash parameters in the secrets file when it was kept nowhere', async () => {
    const h = { algorithm: 'SCRYPT', saltSeparator: 'Bw==', rounds: 8, memCost: 14 };
    const p = withHashConfig(emptyProfile('hc'), h, SIGNER);
    expect(p.secrets.signerKey).toEqual({ store: 'file' });
    await saveProfile(p, { signerKey: SIGNER }, env);
    expect((await loadProfile('hc', env)).secrets.signerKey).toBe(SIGNER);
    expect(readFileSync(profilePaths(env).profiles, 'utf8')).not.toContain(SIGNER);
    // A signer key the operator keeps in an environment variable stays there; no key, no change.
    const fromEnv = { ...emptyProfile('e'), secrets: { ...emptyProfile('e').secrets, signerKey: { store: 'env' as const, name: 'SK' } } };
    expect(withHashConfig(fromEnv, h, SIGNER).secrets.signerKey).toEqual({ store: 'env', name: 'SK' });
    expect(withHashConfig(emptyProfile('n'), h, undefined).secrets.signerKey).toEqual({ store: 'none' });
  });

  it('never writes the secrets or profiles file through a symbolic link', async () => {
    const target = join(dir, 'elsewhere.json');
    writeFileSync(target, '{}', { mode: 0o644 });
    symlinkSync(target, profilePaths(env).secrets);
    const p = emptyProfile('linked');
    p.secrets.apiKey = { store: 'file' };
    await expect(saveProfile(p, { apiKey: API_KEY }, env)).rejects.toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('{}');
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });
});
