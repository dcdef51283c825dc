// A sync that changed a legacy hash, against a real core (`npm run test:core`): the checks of
// test/signin/sync-suite.ts (md5 to another md5, and md5 to bcrypt: the old password refused, the new one signs in
// through withLegacySignIn; rollback of the sync; signin-status counts) against the core named by
// AUTH_MIGRATE_TEST_CORE_URL (+ AUTH_MIGRATE_TEST_CORE_API_KEY), e.g. the reference SuperTokens core; skipped,
// saying why, without one. The core may be shared: every id and email carries this run's own prefix and domain.
import { randomBytes } from 'node:crypto';
import { signInSyncSuite } from '../support/signin/sync-suite.js';

const URL_ = process.env.AUTH_MIGRATE_TEST_CORE_URL;
const KEY = process.env.AUTH_MIGRATE_TEST_CORE_API_KEY;
if (!URL_)
  console.warn('test/core/signin-sync.test.ts: skipped, AUTH_MIGRATE_TEST_CORE_URL is not set (see README, "Testing against a real core")');

const run = randomBytes(4).toString('hex');
signInSyncSuite(
  'core',
  !URL_,
  async () => ({ url: URL_!, ...(KEY ? { apiKey: KEY } : {}), env: (KEY ? { AUTH_MIGRATE_API_KEY: KEY } : {}) as Record<string, string> }),
  `s${run}-`,
  `s${run}.sync.example.test`,
);
