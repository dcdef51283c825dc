// Supabase `$fbscrypt$` and Clerk `scrypt_firebase` digests against a real core (`npm run test:core`): the checks of
// test/support/signin/vendor-scrypt-suite.ts against the core named by AUTH_MIGRATE_TEST_CORE_URL (+ _API_KEY), which must
// hold the Firebase sample project's signer key (shared/formats.md §1; the reference core's configuration); skipped,
// saying why, without one. The core may be shared: every email is under this run's own domain.
import { randomBytes } from 'node:crypto';
import { vendorScryptSuite } from '../support/signin/vendor-scrypt-suite.js';
import { CORE_API_KEY, CORE_URL, skippedWithoutCore } from '../support/real-core.js';

const skip = skippedWithoutCore('test/core/vendor-scrypt.test.ts');

vendorScryptSuite(
  'core',
  skip,
  async () => ({ url: CORE_URL!, apiKey: CORE_API_KEY, env: { AUTH_MIGRATE_API_KEY: CORE_API_KEY } }),
  `v${randomBytes(4).toString('hex')}.vendor-scrypt.example.test`,
);
