#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/bin/ (one bundle and its chunks, built by `npm install` through the
// prepare script: rolldown.config.mjs says why a bundle).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/bin/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('auth-migrate is not built: run `npm install` (or `npm run build`) in its folder first.\n');
  process.exit(2);
}
// A reader that closes the pipe early (`validate ... | head`) ends our output, not the command: a run in progress
// goes on writing its journal, and no EPIPE stack trace reaches the terminal.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});
const { main, exitOnFileErrors } = await import(cli.href);
// A file the tool writes that fails outside any awaited call (disk full, size limit): one line, exit 2.
exitOnFileErrors();
process.exitCode = await main(process.argv.slice(2));
