// Where `run --unusable-hashes migrate-at-sign-in` gets its secret (issue 32): AUTH_MIGRATE_SIGNIN_SECRET, else the
// environment variable a profile names; never a flag. Without one, or with a short one, the run is refused
// (exit 2, naming the variables, never echoing a value); verify, which only reads, goes on without.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { runRequestOf, type RunOptionValues } from '../../src/commands/run-request.js';
import { emptyProfile, type LoadedProfile } from '../../src/profiles/index.js';

const SECRET = 'a-secret-for-the-settings-test-0123456789';
const values: RunOptionValues = { core: 'http://127.0.0.1:1', 'unusable-hashes': 'migrate-at-sign-in' };
const base = { cwd: process.cwd(), positionals: ['users.ndjson'], rerunArgs: [] };
const profile = (name?: string): LoadedProfile => ({
  profile: {
    ...emptyProfile('p'),
    target: { kind: 'remote', url: 'http://127.0.0.1:1' },
    ...(name ? { signinSecret: { store: 'env', name } } : {}),
  },
  secrets: {},
  missing: [],
});

describe("the sign-in migration's secret", () => {
  it('from AUTH_MIGRATE_SIGNIN_SECRET: the plan signs entries', async () => {
    const s = await runRequestOf(values, { ...base, env: { AUTH_MIGRATE_SIGNIN_SECRET: SECRET } });
    expect(s.plan.signer).toBeDefined();
    expect(JSON.stringify(s)).not.toContain(SECRET);
    // The resume command names the variable to export again (its name, never its value).
    expect(s.rerun.exports).toContain('AUTH_MIGRATE_SIGNIN_SECRET');
  });

  it('from the variable a profile names, when AUTH_MIGRATE_SIGNIN_SECRET is not set', async () => {
    const s = await runRequestOf(values, { ...base, env: { MY_APP_SECRET: SECRET }, profile: profile('MY_APP_SECRET') });
    expect(s.plan.signer).toBeDefined();
    expect(s.rerun.exports).toContain('MY_APP_SECRET');
    expect(s.rerun.exports).not.toContain('AUTH_MIGRATE_SIGNIN_SECRET');
  });

  it.each([
    ['nothing', {}, undefined],
    ['a short secret', { AUTH_MIGRATE_SIGNIN_SECRET: 'short-one' }, undefined],
    ["the profile's variable unset", {}, 'MY_APP_SECRET'],
  ])('refused with %s, naming the variables and never the value', async (_name, env, named) => {
    const err = await runRequestOf(values, { ...base, env, ...(named ? { profile: profile(named) } : {}) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as Error).message).toContain('AUTH_MIGRATE_SIGNIN_SECRET');
    if (named) expect((err as Error).message).toContain(named);
    expect((err as Error).message).not.toContain('short-one');
  });

  it('verify (read only) goes on without it', async () => {
    const s = await runRequestOf(values, { ...base, env: {}, readOnly: true });
    expect(s.plan.signer).toBeUndefined();
    expect(s.rerun.exports).not.toContain('AUTH_MIGRATE_SIGNIN_SECRET');
  });
});
