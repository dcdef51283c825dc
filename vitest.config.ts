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
    // A worker keeps the modules it loaded for its next file: no test mocks a module or changes process.env, and
    // loading the sources again for each of 220 files cost a third of the unit tests' CPU.
    isolate: false,
    sequence: { sequencer: EndToEndFirst },
  },
});
