// Remote with latency: the runner migrates email-password users through a loopback proxy that holds each
// request 20 ms, at concurrency 32; the ideal is concurrency / latency requests per second.
import { fileURLToPath } from 'node:url';
import { ensureDataset } from '../lib/data.js';
import { runMigration } from '../lib/migrate.js';
import { startServer } from '../lib/proc.js';
import { startBenchSandbox, BENCH_API_KEY } from '../lib/sandbox.js';
import { row, fmt } from '../lib/table.js';

const PROXY = fileURLToPath(new URL('../latency-proxy.js', import.meta.url));
const MIN_OF_IDEAL = 0.8;

export async function benchLatency(ctx) {
  const { cfg, log } = ctx;
  const n = cfg.latencyUsers;
  const c = cfg.latencyConcurrency;
  const ideal = (c * 1000) / cfg.latencyMs;
  const data = await ensureDataset('email-password', n, { log });
  const sandbox = await startBenchSandbox();
  let run;
  try {
    const proxy = await startServer(PROXY, [sandbox.url, String(cfg.latencyMs)]);
    try {
      run = await runMigration({ file: data.file, url: proxy.url, apiKey: BENCH_API_KEY, concurrency: c });
    } finally {
      await proxy.stop();
    }
  } finally {
    await sandbox.stop();
  }
  const s = run.summary;
  const ok = s.imported === n && s.failed === 0;
  const migrateMs = s.durationMs ?? run.wallMs;
  const rps = (run.requests * 1000) / migrateMs;
  const share = rps / ideal;
  log(
    `latency ${cfg.latencyMs} ms, concurrency ${c}: ${run.requests} requests in ${fmt.s(migrateMs)} = ${Math.round(rps)}/s, ideal ${ideal}/s`,
  );
  if (!ok) log(`  ! not every user was imported: ${JSON.stringify(s)}`);
  return {
    rows: [
      row(
        `Remote, +${cfg.latencyMs} ms per request, concurrency ${c} (${fmt.int(n)} users): requests/s vs ideal ${fmt.rate(ideal)}`,
        `${fmt.rate(rps)} (${fmt.pct(share)})`,
        `>= ${fmt.pct(MIN_OF_IDEAL)}`,
        ok && share >= MIN_OF_IDEAL,
      ),
    ],
    data: {
      users: n,
      concurrency: c,
      latencyMs: cfg.latencyMs,
      requests: run.requests,
      migrateMs,
      wallMs: run.wallMs,
      rps,
      ideal,
      share,
      summary: s,
    },
  };
}
