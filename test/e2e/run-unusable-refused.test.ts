// Issue 33 point 7: the README's refusal rule for whole classes covers users whose hashes the core cannot take. A
// Keycloak realm with pbkdf2 users run without --unusable-hashes would leave every such user out: refused before
// any write (exit 2, no run folder, the core as it was), naming --unusable-hashes migrate-at-sign-in and
// --allow-partial, as a missing hash config is; the dry run says a run would be refused; a policy chosen
// (skip included) or --allow-partial goes on. The wizard's services refuse alike (the same operation).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunOperationEvent } from '../../src/operations/events.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const KEYCLOAK = ['keycloak/acme-users-0.json', 'keycloak/acme-users-1.json'].map((p) => join(FIXTURES, p));
// migrate-at-sign-in signs each legacy entry with the app's secret (auth-migrate-signin): a run needs it.
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE, AUTH_MIGRATE_SIGNIN_SECRET: 'unusable-refused-test-secret-0123456789abcdef' };
let dir: string;
let core: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-unusable-refused-'));
  core = await startSandbox({ port: 0, store: join(dir, 'core.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await core?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const runFolders = (where: string) => readdirSync(where).filter((f) => /-\d{4}-\d\d-\d\dT/.test(f));
const coreState = async () => JSON.stringify(await allUsers(client(core.url)));

describe('users whose hashes the core cannot take, with no --unusable-hashes chosen', () => {
  it('are refused before any write, the fix named; a chosen policy or --allow-partial goes on', async () => {
    const here = mkdtempSync(join(dir, 'kc-'));
    const before = await coreState();
    const refused = await cli(['run', ...KEYCLOAK, '--core', core.url, '--yes'], here, env);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      'nothing was written: 2 users would lose their whole account (left out of the run): their password hashes (pbkdf2-sha256 1, pbkdf2-sha512 1) are ones the core cannot take',
    );
    expect(refused.stderr).toMatch(
      /to go on: give --unusable-hashes migrate-at-sign-in .*; or go on without them knowingly \(--allow-partial\)/,
    );
    expect(refused.stderr).toContain('no run folder or journal was made');
    expect(runFolders(here)).toEqual([]);
    expect(await coreState()).toBe(before);

    // The dry run says what a run would do.
    const dry = await cli(['run', ...KEYCLOAK, '--dry-run'], here, env);
    expect(dry.stderr).toContain('a run would be refused (nothing written): 2 users would lose their whole account');

    // Chosen knowingly: skip leaves them out (the run goes on), --allow-partial likewise, migrate-at-sign-in imports them.
    const skip = await cli(
      ['run', ...KEYCLOAK, '--core', core.url, '--yes', '--unusable-hashes', 'skip', '--journal', 's.ndjson', '--json'],
      here,
      env,
    );
    expect(skip.stderr).not.toContain('would lose their whole account');
    expect(summaryOf(skip.stdout)).toMatchObject({ total: 5, imported: 2, skipped: 3 });
    const partial = await cli(
      ['run', ...KEYCLOAK, '--core', core.url, '--yes', '--allow-partial', '--journal', 'p.ndjson', '--json'],
      here,
      env,
    );
    expect(partial.stderr).toContain('going on without them (--allow-partial): 2 users would lose their whole account');
    expect(summaryOf(partial.stdout)).toMatchObject({ total: 5, alreadyPresent: 2, skipped: 3 });
    const atSignIn = await cli(
      ['run', ...KEYCLOAK, '--core', core.url, '--yes', '--unusable-hashes', 'migrate-at-sign-in', '--journal', 'm.ndjson', '--json'],
      here,
      env,
    );
    expect(summaryOf(atSignIn.stdout)).toMatchObject({ total: 5, imported: 2, alreadyPresent: 2, skipped: 1 });
  });

  it("the wizard's services plan and refuse the same loss (the same operation)", async () => {
    const wizDir = mkdtempSync(join(dir, 'wiz-'));
    const services = createRealServices({ env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') }, cwd: wizDir });
    const input = { sources: KEYCLOAK.map((path) => ({ path, format: 'keycloak' as const })) };
    const events: RunOperationEvent[] = [];
    const outcome = await services.run(
      input,
      { url: core.url, licenseKey: LICENSE },
      {
        profileName: '',
        onEvent: (e) => events.push(e),
        confirm: async () => true,
      },
    ).done;
    expect(outcome.stopped).toBe('refused');
    expect(outcome.exitCode).toBe(2);
    const partial = events.find((e): e is Extract<RunOperationEvent, { type: 'partial' }> => e.type === 'partial');
    expect(partial?.losses.map((l) => [l.rule, l.users])).toEqual([['unusable-hashes.unchosen', 2]]);
    expect(readdirSync(wizDir)).toEqual([]);
    // With the policy chosen on the plan screen (the profile's unusableHashes), nothing is refused. The wizard takes
    // the sign-in secret from the keys screen's field (the input's signInSecret).
    const chosen = await services.run(
      { ...input, unusableHashes: 'migrate-at-sign-in', signInSecret: env.AUTH_MIGRATE_SIGNIN_SECRET },
      { url: core.url, licenseKey: LICENSE },
      {
        profileName: '',
        onEvent: () => undefined,
        confirm: async () => true,
      },
    ).done;
    expect(chosen.stopped).toBeUndefined();
  });
});
