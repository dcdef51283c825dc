// The guards of migration at first sign-in against a real core (`npm run test:core`): the checks of test/signin/guard-suite.ts against
// the core named by AUTH_MIGRATE_TEST_CORE_URL (+ AUTH_MIGRATE_TEST_CORE_API_KEY), e.g. the reference SuperTokens
// core; skipped, saying why, without one. The core may be shared: every email is under this run's own domain.
import { randomBytes } from 'node:crypto';
import { signInGuardSuite } from '../signin/guard-suite.js';

const URL_ = process.env.AUTH_MIGRATE_TEST_CORE_URL;
const KEY = process.env.AUTH_MIGRATE_TEST_CORE_API_KEY;
if (!URL_)
  console.warn(
    'test/core/signin-guards.test.ts: skipped, AUTH_MIGRATE_TEST_CORE_URL is not set (see README, "Testing against a real core")',
  );

signInGuardSuite(
  'core',
  !URL_,
  async () => ({ url: URL_!, ...(KEY ? { apiKey: KEY } : {}), env: (KEY ? { AUTH_MIGRATE_API_KEY: KEY } : {}) as Record<string, string> }),
  `s${randomBytes(4).toString('hex')}.guard.example.test`,
);
