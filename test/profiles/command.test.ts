import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';

const API_KEY = 'apikey-0123456789abcdefXYZ';
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-profiles-cmd-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const code = await main(argv, { stdout, stderr, env: { ...env, ...extraEnv } });
  return { code, out, err };
}

describe('auth-migrate profiles', () => {
  it('lists, shows with secrets reduced to their source, and deletes', async () => {
    const p = emptyProfile('prod');
    p.sources = [{ path: 'fixtures/users.ndjson', format: 'canonical' }];
    p.secrets.apiKey = { store: 'file' };
    p.secrets.licenseKey = { store: 'env', name: 'PROD_LICENSE' };
    await saveProfile(p, { apiKey: API_KEY }, env);

    const list = await cli(['profiles', 'list']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^prod\tsandbox\t\/\S+\/fixtures\/users.ndjson$/m);

    const show = await cli(['profiles', 'show', 'prod'], { PROD_LICENSE: 'license-value-secret' });
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/api key\s+\(stored\)/);
    expect(show.out).toMatch(/licence key\s+\(from \$PROD_LICENSE\)/);
    expect(show.out).toMatch(/signer key\s+\(not stored\)/);
    expect(show.out).not.toContain(API_KEY);
    expect(show.out).not.toContain('license-value-secret');

    const missing = await cli(['profiles', 'show', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no profile named 'nope'");

    expect((await cli(['profiles', 'delete', 'prod'])).code).toBe(0);
    expect((await cli(['profiles', 'list'])).out).toContain('no profiles saved yet');
  });

  it('rejects unknown actions with exit 2', async () => {
    const r = await cli(['profiles', 'explode']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown profiles action');
  });
});
