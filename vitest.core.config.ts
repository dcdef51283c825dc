// `npm run test:core`: the suites that run against a real core (test/core/**, AUTH_MIGRATE_TEST_CORE_URL). Not part
// of `npm test`. One file at a time: they share the core, and a core under load is what they measure.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
