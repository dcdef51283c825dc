import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Several suites spawn real sandbox cores and CLIs; two cores on this machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
