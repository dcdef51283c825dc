// Run `auth-migrate run` (the real command and runner) as a child process against a core, counting the HTTP
// requests it sends with a preloaded counter, and return its JSON summary with the wall time.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode, lastJson } from './proc.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/auth-migrate.js');
const COUNTER = join(ROOT, 'bench/count-requests.js');

/**
 * Migrate `file` into the core at `url` (or, with command 'verify', check it; `journal` keeps the journal where given). Secrets go through the environment, never argv.
 * Returns {summary, wallMs, requests, cpuMs (the command's own CPU time), code}. Throws with the command's stderr if it produced no summary.
 */
export async function runMigration({ file, url, apiKey, concurrency, cpuProfDir, extraArgs = [], journal, command = 'run', onStderr }) {
  const dir = mkdtempSync(join(tmpdir(), 'auth-migrate-bench-run-'));
  const countFile = join(dir, 'requests');
  const nodeArgs = ['--import', COUNTER];
  if (cpuProfDir) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`);
  try {
    const result = await runNode(
      BIN,
      [
        command,
        file,
        '--core',
        url,
        // A run writes into a core reached by URL: without a terminal it needs --yes (verify reads only).
        ...(command === 'run' ? ['--yes'] : []),
        '--concurrency',
        String(concurrency),
        '--journal',
        journal ?? join(dir, 'journal.jsonl'),
        '--json',
        ...extraArgs,
      ],
      {
        nodeArgs,
        cwd: dir,
        env: { AUTH_MIGRATE_API_KEY: apiKey ?? '', BENCH_REQUEST_COUNT_FILE: countFile },
        onStderr,
      },
    );
    const summary = lastJson(result.stdout);
    if (!summary || typeof summary.total !== 'number') {
      throw new Error(
        `auth-migrate ${command} exited ${result.code} without a JSON summary: ${result.stderr.trim().split('\n').slice(-5).join(' | ')}`,
      );
    }
    let counted = {};
    try {
      counted = JSON.parse(readFileSync(countFile, 'utf8'));
    } catch {
      // no count: the rows that need it say n/a
    }
    return {
      summary,
      wallMs: result.wallMs,
      requests: counted.requests,
      byPath: counted.byPath,
      cpuMs: counted.cpuMs,
      peakRssMb: counted.peakRssMb,
      code: result.code,
      stderrTail: result.stderr.trim().split('\n').slice(-3),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
