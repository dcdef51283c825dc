import { configDefaults, defineConfig } from 'vitest/config';
import EndToEndFirst from './test/sequencer.js';

const include = ['test/**/*.test.ts', 'test/**/*.test.tsx'];
// Against a real core: `npm run test:core` (vitest.core.config.ts).
const exclude = [...configDefaults.exclude, 'test/core/**'];
// Files that start supertokens-node (SuperTokens.init holds one app per process): each in a fresh module graph.
const sdk = ['test/**/*signin*.test.{ts,tsx}', 'test/signin/**/*.test.ts', 'test/signin-session/**/*.test.ts', 'test/sandbox/sdk.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Several suites spawn real sandbox cores and CLIs; two cores on this machine.
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: EndToEndFirst },
    projects: [
      // A worker keeps the modules it loaded for its next file: no test mocks a module or changes process.env, and
      // loading the sources again for each of 220 files cost a third of the unit tests' CPU.
      { extends: true, test: { name: 'shared', include, exclude: [...exclude, ...sdk], isolate: false } },
      { extends: true, test: { name: 'sdk', include: sdk, exclude, isolate: true } },
    ],
  },
});
