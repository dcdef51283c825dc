// Target options: where secrets come from (flag > environment > profile), target choice, printed commands.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../src/commands/target-options.js';
import { describeTarget } from '../../src/operations/target.js';
import { rerunCommand, rerunFileText, rerunText } from '../../src/operations/rerun.js';
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

describe('--ca (an https core with its own CA, issue 23)', () => {
  it('reads the PEM file into the remote target; refuses it with the sandbox and names a missing file', async () => {
    const pem = join(dir, 'ca.pem');
    writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const r = await resolveTarget({ core: 'https://core.example.com', ca: 'ca.pem' }, {}, dir);
    expect(r.target).toMatchObject({ kind: 'remote', ca: expect.stringContaining('BEGIN CERTIFICATE') });
    // The journal's name of the target does not change with it.
    expect(describeTarget(r.target)).toBe('https://core.example.com tenant=public app=public');
    await expect(resolveTarget({ sandbox: true, ca: 'ca.pem' }, {}, dir)).rejects.toThrow('--ca goes with an https core');
    await expect(resolveTarget({ core: 'https://core.example.com', ca: 'nope.pem' }, {}, dir)).rejects.toThrow('--ca nope.pem');
  });
});

describe('the rerun command', () => {
  it('holds no secret nor a reference to one (both flag forms), is quoted for the shell, and says what to export', () => {
    const rerun = rerunCommand(
      'run',
      ['my users.ndjson', '--api-key', 'SECRET1', '--license-key=SECRET2', '--signer-key', 'SECRET3', '--core', 'http://h:1'],
      { journal: '/runs/x/journal.ndjson', exports: ['AUTH_MIGRATE_API_KEY', 'AUTH_MIGRATE_LICENSE_KEY'] },
    );
    expect(rerun.command).toBe(`auth-migrate run 'my users.ndjson' --core http://h:1 --journal /runs/x/journal.ndjson`);
    for (const text of [rerun.command, rerunText(rerun), rerunFileText(rerun)]) {
      expect(text).not.toMatch(/SECRET|\$AUTH|--api-key|--license-key|--signer-key/);
    }
    expect(rerunText(rerun)).toMatch(/^export AUTH_MIGRATE_API_KEY AUTH_MIGRATE_LICENSE_KEY .*then: auth-migrate run/);
    expect(rerunFileText(rerun)).toMatch(/^# This run used keys from AUTH_MIGRATE_API_KEY, AUTH_MIGRATE_LICENSE_KEY: export them/);
  });

  it('names the sandbox store and the journal it carries on, unless the arguments already do', () => {
    expect(rerunCommand('run', ['a.json', '--sandbox'], { journal: '/j', store: '/s.json', exports: [] }).command).toBe(
      'auth-migrate run a.json --sandbox --journal /j --store /s.json',
    );
    expect(
      rerunCommand('run', ['a.json', '--store', 's.json', '--journal', 'j'], { journal: '/j', store: '/s.json', exports: [] }).command,
    ).toBe('auth-migrate run a.json --store s.json --journal j');
  });
});
