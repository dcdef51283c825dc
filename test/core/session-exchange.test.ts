// Session exchange against a real core (`npm run test:core`): the checks of test/support/signin-session/suite.ts against the
// core named by AUTH_MIGRATE_TEST_CORE_URL (+ AUTH_MIGRATE_TEST_CORE_API_KEY), e.g. the reference SuperTokens core
// (in-memory: multitenancy is on); skipped, saying why, without one. Ids and emails carry this run's own tag.
import { randomBytes } from 'node:crypto';
import { sessionExchangeSuite } from '../support/signin-session/suite.js';
import { skippedWithoutCore, suiteTarget } from '../support/real-core.js';

const skip = skippedWithoutCore('test/core/session-exchange.test.ts');

sessionExchangeSuite('core', skip, suiteTarget, randomBytes(4).toString('hex'));
