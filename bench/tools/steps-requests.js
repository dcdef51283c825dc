// Requests per user of `auth-migrate run --via steps` against the bare steps script (bench/lib/bare.js), each on an
// empty sandbox core of its own, for the same users (the real-core bench's population, bench/sections/real-core.js).
// The tool's requests are counted in its process by bench/count-requests.js, the bare script's by its client.
// Usage: node bench/tools/steps-requests.js [users=2000] [concurrency=16] [cpuProfDir]   (after npm run build)
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeHashSamples } from '../lib/hashes.js';
import { readUsers, runBare } from '../lib/bare.js';
import { runMigration } from '../lib/migrate.js';
import { BENCH_API_KEY, startBenchSandbox } from '../lib/sandbox.js';
import { realUser } from '../sections/real-core.js';

const [n = 2000, concurrency = 16, cpuProfDir] = process.argv.slice(2).map((a, i) => (i < 2 ? Number(a) : a));
const dir = mkdtempSync(join(tmpdir(), 'am-steps-requests-'));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
try {
  const samples = await computeHashSamples();
  const file = join(dir, 'users.ndjson');
  const out = createWriteStream(file);
  for (let i = 0; i < n; i++) if (!out.write(JSON.stringify(realUser(i, samples, 'steps', 0)) + '\n')) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  const loadBefore = load();
  const bareCore = await startBenchSandbox({ store: join(dir, 'bare.json') });
  const bare = await runBare('steps', { url: bareCore.url, apiKey: BENCH_API_KEY, users: await readUsers(file), concurrency });
  await bareCore.stop();
  const toolCore = await startBenchSandbox({ store: join(dir, 'tool.json') });
  const tool = await runMigration({
    file,
    url: toolCore.url,
    apiKey: BENCH_API_KEY,
    concurrency,
    cpuProfDir,
    extraArgs: ['--via', 'steps'],
  });
  await toolCore.stop();
  const perUser = (r) => r / n;
  console.log(
    JSON.stringify({
      users: n,
      concurrency,
      load: { before: loadBefore, after: load() },
      bare: { requests: bare.requests, perUser: perUser(bare.requests), wallMs: Math.round(bare.wallMs) },
      tool: {
        requests: tool.requests,
        perUser: perUser(tool.requests),
        // The mapping read-backs (issue 31), which the bare script does not send, and every other request.
        mapReadBacks: tool.byPath?.['GET /recipe/userid/map'] ?? 0,
        perUserOther: perUser(tool.requests - (tool.byPath?.['GET /recipe/userid/map'] ?? 0)),
        byPath: tool.byPath,
        wallMs: Math.round(tool.wallMs),
        cpuMs: tool.cpuMs,
        imported: tool.summary.imported,
        failed: tool.summary.failed,
      },
      ratio: tool.requests / bare.requests,
      ratioOther: (tool.requests - (tool.byPath?.['GET /recipe/userid/map'] ?? 0)) / bare.requests,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
