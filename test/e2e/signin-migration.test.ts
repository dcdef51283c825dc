// Issue 21's done-when on the sandbox: the checks of test/support/signin/suite.ts (every algorithm signs in once with the
// old password, then the core's own hash; wrong password; race; disabled; reset; Cognito; signin-status) against a
// sandbox core this file starts. The same checks run against a real core in test/core/signin.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE } from '../support/cli.js';
import { startTestSandbox } from '../support/sandbox.js';
import { signInMigrationSuite } from '../support/signin/suite.js';

let sb: RunningSandbox | undefined;
const dir = mkdtempSync(join(tmpdir(), 'am-signin-store-'));
afterAll(async () => {
  await sb?.stop();
  rmSync(dir, { recursive: true, force: true });
});

signInMigrationSuite(
  'sandbox',
  false,
  async () => {
    sb = await startTestSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
    return { url: sb.url, env: { AUTH_MIGRATE_LICENSE_KEY: LICENSE } };
  },
  'signin.example.test',
);
