// The tool's own CPU on `auth-migrate run --via bulk-staged` (issue 35): the real-core bench's population
// (bench/sections/real-core.js) migrated into a fresh sandbox core whose job runs every second (the tool's CPU per
// user does not depend on the core; a short interval keeps the run from being mostly a wait). Prints the command's
// user + system CPU (measured in its process by bench/count-requests.js), per user, its peak RSS and the machine's
// load before and after. With a keep directory, the source file is written there once and reused by later runs
// (so that two builds can be given the same users), and the run's journal and report are kept there as
// <label>.journal.ndjson / <label>.report.ndjson, for comparing builds (bench/tools/staged-compare.js).
// Usage: node bench/tools/staged-cpu.js [users=20000] [keepDir] [label=run] [cpuProfDir]   (after npm run build)
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeHashSamples } from '../lib/hashes.js';
import { runMigration } from '../lib/migrate.js';
import { BENCH_API_KEY, startBenchSandbox } from '../lib/sandbox.js';
import { realUser } from '../sections/real-core.js';

const [nArg, keepDir, label = 'run', cpuProfDir] = process.argv.slice(2);
const n = Number(nArg ?? 20_000);
const CONCURRENCY = 16;
const JOB_INTERVAL_SEC = 1;
const dir = mkdtempSync(join(tmpdir(), 'am-staged-cpu-'));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
try {
  const home = keepDir ?? dir;
  mkdirSync(home, { recursive: true });
  const file = join(home, `users-${n}.ndjson`);
  if (!existsSync(file)) {
    const samples = await computeHashSamples();
    const out = createWriteStream(file);
    for (let i = 0; i < n; i++) if (!out.write(JSON.stringify(realUser(i, samples, 'staged', 0)) + '\n')) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
  }
  const core = await startBenchSandbox({ store: join(dir, 'core.json'), bulkImportIntervalSec: JOB_INTERVAL_SEC });
  const loadBefore = load();
  let tool;
  try {
    tool = await runMigration({
      file,
      url: core.url,
      apiKey: BENCH_API_KEY,
      concurrency: CONCURRENCY,
      cpuProfDir,
      journal: join(home, `${label}.journal.ndjson`),
      extraArgs: ['--via', 'bulk-staged', '--job-interval', String(JOB_INTERVAL_SEC)],
    });
  } finally {
    await core.stop();
  }
  console.log(
    JSON.stringify({
      users: n,
      label,
      profiled: Boolean(cpuProfDir),
      load: { before: loadBefore, after: load() },
      wallMs: Math.round(tool.wallMs),
      cpuMs: Math.round(tool.cpuMs),
      cpuMsPerUser: Number((tool.cpuMs / n).toFixed(3)),
      peakRssMb: Math.round(tool.peakRssMb),
      requests: tool.requests,
      imported: tool.summary.imported,
      failed: tool.summary.failed,
      code: tool.code,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
