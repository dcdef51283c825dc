// Session exchange against a real core (`npm run test:core`): the checks of test/signin-session/suite.ts against the
// core named by AUTH_MIGRATE_TEST_CORE_URL (+ AUTH_MIGRATE_TEST_CORE_API_KEY), e.g. the reference SuperTokens core
// (in-memory: multitenancy is on); skipped, saying why, without one. Ids and emails carry this run's own tag.
import { randomBytes } from 'node:crypto';
import { sessionExchangeSuite } from '../signin-session/suite.js';

const URL_ = process.env.AUTH_MIGRATE_TEST_CORE_URL;
const KEY = process.env.AUTH_MIGRATE_TEST_CORE_API_KEY;
if (!URL_) console.warn('test/core/session-exchange.test.ts: skipped, AUTH_MIGRATE_TEST_CORE_URL is not set');

sessionExchangeSuite('core', !URL_, async () => ({ url: URL_!, ...(KEY ? { apiKey: KEY } : {}) }), randomBytes(4).toString('hex'));
