// Issue 21's done-when "Supabase and Clerk samples with Firebase-scrypt digests import and sign in with their known
// passwords" on the sandbox: the checks of test/support/signin/vendor-scrypt-suite.ts against a sandbox core configured with
// the Firebase sample project's signer key. The same checks run against a real core in test/core/vendor-scrypt.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, LICENSE } from '../support/cli.js';
import { SIGNER_KEY } from '../support/vectors.js';
import { startTestSandbox } from '../support/sandbox.js';
import { vendorScryptSuite } from '../support/signin/vendor-scrypt-suite.js';

let sb: RunningSandbox | undefined;
const dir = mkdtempSync(join(tmpdir(), 'am-vendor-scrypt-store-'));
afterAll(async () => {
  await sb?.stop();
  rmSync(dir, { recursive: true, force: true });
});

vendorScryptSuite(
  'sandbox',
  false,
  async () => {
    sb = await startTestSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SIGNER_KEY });
    return { url: sb.url, env: { AUTH_MIGRATE_LICENSE_KEY: LICENSE } };
  },
  'vendor-scrypt.example.test',
);

// The project's own samples (fixtures/, their own signer key in firebase/hash-config.txt): the spot-check proves
// each Firebase digest converts to a hash that checks the README's known password. Their import and sign-in is in
// test/e2e/run-supabase-keycloak.test.ts (Supabase) and test/e2e/stdin.test.ts (Clerk, verify --credentials).
describe('the fixtures: Supabase fay and Clerk fay', () => {
  const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
  const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
  const passwordOf = (email: string): string => new RegExp(`\\| ${email.replace(/\./g, '\\.')} \\| \`([^\`]+)\``).exec(readme)![1]!;
  it.each([
    ['supabase', ['supabase/users.csv', 'supabase/identities.csv', 'supabase/mfa_factors.csv'], 'fay.sb@example.com'],
    ['clerk', ['clerk/users.csv'], 'fay@clerk.example'],
  ])('%s: the known password matches the converted digest', async (_, files, email) => {
    const v = await cli(
      [
        'validate',
        ...files.map((f) => join(FIXTURES, f)),
        '--hash-config',
        join(FIXTURES, 'firebase/hash-config.txt'),
        '--check-password',
        `${email}:${passwordOf(email)}`,
        '--check-password',
        `${email}:${passwordOf(email)}x`,
        '--json',
      ],
      dir,
    );
    const spot = (JSON.parse(v.stdout) as { spotChecks: Array<{ result: string; detail: string }> }).spotChecks;
    expect(spot).toEqual([
      { user: email, result: 'match', detail: 'the password matches the external_scrypt hash' },
      { user: email, result: 'wrong-password', detail: expect.any(String) },
    ]);
  });
});
