import { configDefaults, defineConfig } from 'vitest/config';
import EndToEndFirst from './test/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Against a real core: `npm run test:core` (vitest.core.config.ts).
    exclude: [...configDefaults.exclude, 'test/core/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Several suites spawn real sandbox cores and CLIs; two cores on this machine.
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: EndToEndFirst },
  },
});
