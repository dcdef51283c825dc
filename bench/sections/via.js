// `run --via steps|bulk|bulk-staged` side by side (issue 11): the same mixed users (join dates, TOTP, links)
// migrated by the real command into a fresh sandbox each, users/s and HTTP requests per user. The staged path's
// time includes waiting for the sandbox's bulk-import job (run every second here; the reference's is 5 minutes).
import { ensureDataset } from '../lib/data.js';
import { runMigration } from '../lib/migrate.js';
import { startBenchSandbox, BENCH_API_KEY } from '../lib/sandbox.js';
import { row, fmt } from '../lib/table.js';

const VIAS = ['steps', 'bulk', 'bulk-staged'];

export async function benchVia(ctx) {
  const { cfg, log } = ctx;
  const n = cfg.viaUsers;
  const data = await ensureDataset('mixed', n, { log });
  const rows = [];
  const out = {};
  for (const via of VIAS) {
    const sandbox = await startBenchSandbox({ bulkImportIntervalSec: 1 });
    let run;
    try {
      run = await runMigration({
        file: data.file,
        url: sandbox.url,
        apiKey: BENCH_API_KEY,
        concurrency: cfg.concurrency,
        extraArgs: ['--via', via],
      });
    } finally {
      await sandbox.stop();
    }
    const s = run.summary;
    const ok = s.imported === n && s.failed === 0 && s.skipped === 0;
    const usersPerS = (n * 1000) / run.wallMs;
    const perUser = run.requests !== undefined ? run.requests / n : undefined;
    log(`--via ${via}: ${n} users in ${fmt.s(run.wallMs)}; imported ${s.imported}, failed ${s.failed}; ${run.requests} requests`);
    if (!ok) log(`  ! not every user was imported: ${JSON.stringify(s)} ${run.stderrTail.join(' | ')}`);
    rows.push(
      row(
        `--via ${via} (${fmt.int(n)} mixed users): users/s, requests per user`,
        `${fmt.rate(usersPerS)}, ${perUser !== undefined ? perUser.toFixed(2) : 'n/a'} requests/user`,
        null,
        ok ? null : false,
      ),
    );
    out[via] = { wallMs: run.wallMs, usersPerS, requests: run.requests, requestsPerUser: perUser, summary: s };
  }
  return { rows, data: { users: n, concurrency: cfg.concurrency, ...out } };
}
