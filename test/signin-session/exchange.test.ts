// exchangeLegacySession end to end against a real sandbox core on a real port (the checks: suite.ts).
import { randomBytes } from 'node:crypto';
import { LICENSE, startTestSandbox } from '../support/sandbox.js';
import { sessionExchangeSuite } from '../support/signin-session/suite.js';

const API_KEY = 'exchange-test-api-key-0123456789';

sessionExchangeSuite(
  'sandbox',
  false,
  async () => {
    const sb = await startTestSandbox({ apiKeys: [API_KEY], licenseKey: LICENSE });
    return { url: sb.url, apiKey: API_KEY, stop: () => sb.stop() };
  },
  randomBytes(4).toString('hex'),
);
