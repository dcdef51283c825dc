// The command line's bundle: dist/cli.js (tsc's output) and what it loads, dependencies included, in dist/bin/ as a
// few files, so that a command starts without resolving and reading some 400 modules (each spawn of the CLI or of
// the sandbox core paid about as much CPU again for that as for a small command's work). React and Ink, which only
// the wizard loads, stay outside it. tsc's dist/ stays as it is: the tests and the bench import its modules.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: { cli: 'dist/cli.js' },
  platform: 'node',
  external: [/^react(\/|$)/, /^ink(-[a-z-]+)?(\/|$)/],
  output: {
    dir: 'dist/bin',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  },
});
