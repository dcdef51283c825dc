// The guards of migration at first sign-in against a real core (`npm run test:core`): the checks of test/support/signin/guard-suite.ts against
// the core named by AUTH_MIGRATE_TEST_CORE_URL (+ AUTH_MIGRATE_TEST_CORE_API_KEY), e.g. the reference SuperTokens
// core; skipped, saying why, without one. The core may be shared: every email is under this run's own domain.
import { randomBytes } from 'node:crypto';
import { signInGuardSuite } from '../support/signin/guard-suite.js';
import { skippedWithoutCore, suiteTarget } from '../support/real-core.js';

const skip = skippedWithoutCore('test/core/signin-guards.test.ts');

signInGuardSuite('core', skip, suiteTarget, `s${randomBytes(4).toString('hex')}.guard.example.test`);
