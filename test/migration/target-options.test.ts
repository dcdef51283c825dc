// Target options: where secrets come from (flag > environment > profile), target choice, printed commands.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTarget, printableCommand, resolveTarget } from '../../src/commands/target-options.js';
import { saveProfile } from '../../src/profiles/index.js';

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-target-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'cfg') };
  await saveProfile(
    {
      name: 'remote',
      target: { kind: 'remote', url: 'http://core.internal:3567', tenant: 'shop', app: 'main' },
      sources: [],
      secrets: { apiKey: { store: 'file' }, licenseKey: { store: 'none' }, signerKey: { store: 'none' } },
    },
    { apiKey: 'profile-api-key-0123456789' },
    env,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('resolveTarget', () => {
  it.each([
    ['flag wins', { 'api-key': 'flag-key' }, { AUTH_MIGRATE_API_KEY: 'env-key' }, 'flag-key'],
    ['environment next', {}, { AUTH_MIGRATE_API_KEY: 'env-key' }, 'env-key'],
    ['profile last', {}, {}, 'profile-api-key-0123456789'],
    ['blank values are ignored', { 'api-key': '  ' }, { AUTH_MIGRATE_API_KEY: '' }, 'profile-api-key-0123456789'],
  ])('api key: %s', async (_name, flags, extraEnv, expected) => {
    const r = await resolveTarget({ profile: 'remote', ...flags }, { ...env, ...extraEnv }, dir);
    expect(r.secrets.apiKey).toBe(expected);
  });

  it('takes the profile target, and flags override it', async () => {
    const fromProfile = await resolveTarget({ profile: 'remote' }, env, dir);
    expect(fromProfile.target).toEqual({ kind: 'remote', url: 'http://core.internal:3567', tenant: 'shop', app: 'main' });
    expect(describeTarget(fromProfile.target)).toBe('http://core.internal:3567 tenant=shop app=main');
    const overridden = await resolveTarget({ profile: 'remote', sandbox: true, tenant: 't2' }, env, dir);
    expect(overridden.target).toEqual({ kind: 'sandbox', store: join(dir, 'auth-migrate-sandbox.json'), tenant: 't2', app: 'main' });
  });

  it.each([
    [{}, /--core URL .* or --sandbox/],
    [{ core: 'http://a:1', sandbox: true }, /either --core URL or --sandbox/],
    [{ core: 'localhost:3567' }, /must be a URL such as http:\/\/localhost:3567/],
    [{ core: 'http://a:1', store: 'x.json' }, /--store goes with --sandbox/],
  ])('refuses %j', async (values, message) => {
    await expect(resolveTarget(values, {}, dir)).rejects.toThrow(message);
  });
});

describe('printableCommand', () => {
  it('replaces secret values by environment placeholders in both flag forms and quotes for the shell', () => {
    const line = printableCommand('run', [
      'my users.ndjson',
      '--api-key',
      'SECRET1',
      '--license-key=SECRET2',
      '--signer-key',
      'SECRET3',
      '--core',
      'http://h:1',
    ]);
    expect(line).toBe(
      `auth-migrate run 'my users.ndjson' --api-key "$AUTH_MIGRATE_API_KEY" --license-key "$AUTH_MIGRATE_LICENSE_KEY" --signer-key "$AUTH_MIGRATE_SIGNER_KEY" --core http://h:1`,
    );
    expect(line).not.toMatch(/SECRET/);
  });
});
