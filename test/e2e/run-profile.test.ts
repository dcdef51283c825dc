// End to end: `run --profile NAME` and `verify --profile NAME` take the sources, target, options and
// secrets (from the 0600 secrets file or a named environment variable) from a saved profile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveProfile } from '../../src/profiles/index.js';
import { startSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, writeNdjson } from '../support/users.js';

let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-profile-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config'), REHEARSAL_LICENCE: LICENSE };
  const set = generateUsers(12, { prefix: 'p' });
  writeNdjson(join(dir, 'users.ndjson'), set.users);
  await saveProfile(
    {
      name: 'rehearsal',
      target: { kind: 'sandbox', store: join(dir, 'profile-store.json') },
      sources: [{ path: join(dir, 'users.ndjson'), format: 'canonical' }],
      concurrency: 3,
      keepSourceIds: true,
      secrets: { apiKey: { store: 'none' }, licenseKey: { store: 'env', name: 'REHEARSAL_LICENCE' }, signerKey: { store: 'none' } },
    },
    {},
    env as NodeJS.ProcessEnv,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--profile', () => {
  it('runs and verifies from a saved profile', async () => {
    const r = await cli(['run', '--profile', 'rehearsal', '--json'], dir, env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('migrating 12 users, 3 at a time');
    expect(summaryOf(r.stdout)).toMatchObject({ total: 12, imported: 12, sandboxStore: join(dir, 'profile-store.json') });
    const v = await cli(['verify', '--profile', 'rehearsal', '--json'], dir, env);
    expect(v.exitCode, v.stderr + v.stdout).toBe(0);
    // keepSourceIds from the profile: the source ids became the users' ids.
    const sandbox = await startSandbox({ store: join(dir, 'profile-store.json'), licenseKey: LICENSE });
    try {
      const u = await client(sandbox.url).getUserById('p1');
      expect(u.status).toBe('OK');
    } finally {
      await sandbox.stop();
    }
  });

  it('flags override the profile, and an unknown profile is a usage error', async () => {
    const dry = await cli(['run', '--profile', 'rehearsal', '--dry-run', '--json'], dir, env);
    expect(dry.exitCode).toBe(0);
    expect(summaryOf(dry.stdout)).toMatchObject({ dryRun: true, planned: 12 });
    writeNdjson(join(dir, 'three.ndjson'), generateUsers(3, { prefix: 'q', simple: true }).users);
    const other = await cli(['run', 'three.ndjson', '--profile', 'rehearsal', '--dry-run'], dir, env);
    expect(other.exitCode).toBe(0);
    // The file given wins over the profile's sources; keepSourceIds still comes from the profile.
    expect(other.stdout).toMatch(/dry run: 3 users to migrate/);
    expect(other.stdout).toMatch(/map the password user to external id q1:/);
    const missing = await cli(['run', '--profile', 'nope', '--json'], dir, env);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/no profile named 'nope'/);
  });
});
