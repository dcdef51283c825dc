// Issue 32: a sync keeps legacy entries right, on the sandbox: the checks of test/signin/sync-suite.ts against a
// sandbox core this file starts (the same checks run against a real core in test/core/signin-sync.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { LICENSE } from '../support/cli.js';
import { startTestSandbox } from '../support/sandbox.js';
import { signInSyncSuite } from '../support/signin/sync-suite.js';

let sb: RunningSandbox | undefined;
const dir = mkdtempSync(join(tmpdir(), 'am-signin-sync-store-'));
afterAll(async () => {
  await sb?.stop();
  rmSync(dir, { recursive: true, force: true });
});

signInSyncSuite(
  'sandbox',
  false,
  async () => {
    sb = await startTestSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
    return { url: sb.url, env: { AUTH_MIGRATE_LICENSE_KEY: LICENSE } };
  },
  '',
  'sync.signin.example.test',
);
