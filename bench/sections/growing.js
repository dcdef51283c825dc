// A growing store: time for one batch of imports into a sandbox that already holds 0, 100,000 and 500,000
// users. The pre-populated stores are made once (lib/prepopulate.js) and kept in bench/data/; each
// measurement runs on a fresh copy, after checking that a stored user really signs in.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoreClient } from '../../dist/core-client/index.js';
import { ensureDataset } from '../lib/data.js';
import { samplePassword } from '../lib/hashes.js';
import { runMigration } from '../lib/migrate.js';
import { prepopulatedEmail, prepopulatedStore } from '../lib/prepopulate.js';
import { startBenchSandbox, BENCH_API_KEY } from '../lib/sandbox.js';
import { row, fmt } from '../lib/table.js';

/** The last pre-populated user signs in with its known password: the store was loaded, not ignored. */
async function checkStoredUser(url, size) {
  if (size === 0) return;
  const client = createCoreClient({ url, apiKey: BENCH_API_KEY });
  try {
    const r = await client.signIn(prepopulatedEmail(size - 1), samplePassword(0));
    if (r.status !== 'OK') throw new Error(`a pre-populated user does not sign in (${r.status}): the store was not loaded`);
  } finally {
    client.close();
  }
}

const MAX_GROWTH = 1.5;
// The batch's users come after every pre-populated one, so they are all new.
const BATCH_OFFSET = 10_000_000;

async function timeBatch(source, size, batchFile, cfg, log) {
  const dir = mkdtempSync(join(tmpdir(), 'auth-migrate-bench-grow-'));
  const store = join(dir, 'store.json');
  if (source) copyFileSync(source, store);
  const loadStarted = Date.now();
  const sandbox = await startBenchSandbox({ store });
  const sandboxStartMs = Date.now() - loadStarted;
  let run;
  try {
    await checkStoredUser(sandbox.url, size);
    run = await runMigration({ file: batchFile, url: sandbox.url, apiKey: BENCH_API_KEY, concurrency: cfg.concurrency });
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const ok = run.summary.imported === cfg.growBatch && run.summary.failed === 0;
  if (!ok) log(`  ! not every user was imported: ${JSON.stringify(run.summary)}`);
  return { ms: run.summary.durationMs ?? run.wallMs, wallMs: run.wallMs, sandboxStartMs, ok };
}

export async function benchGrowing(ctx) {
  const { cfg, log } = ctx;
  const batch = await ensureDataset('email-password', cfg.growBatch, { offset: BATCH_OFFSET, log });
  const points = [];
  for (const size of cfg.growSizes) {
    const source = await prepopulatedStore(size, log);
    const runs = [];
    // Repeated on a fresh copy each time; the median resists the odd slow fsync.
    for (let rep = 0; rep < cfg.growRepeats; rep++) runs.push(await timeBatch(source, size, batch.file, cfg, log));
    const ordered = [...runs].sort((a, b) => a.ms - b.ms);
    const median = ordered[Math.floor(ordered.length / 2)];
    log(`store with ${size} users: ${cfg.growBatch} imports in ${runs.map((r) => fmt.s(r.ms)).join(', ')} (median ${fmt.s(median.ms)})`);
    points.push({ stored: size, ms: median.ms, runs, ok: runs.every((r) => r.ok) });
  }
  const base = points[0].ms;
  const rows = points.map((p, i) =>
    row(
      `Growing store: ${fmt.int(cfg.growBatch)} imports with ${fmt.int(p.stored)} stored`,
      i === 0 ? fmt.s(p.ms) : `${fmt.s(p.ms)} (${fmt.x(p.ms / base)})`,
      i === 0 ? null : `<= ${fmt.x(MAX_GROWTH)} of 0 stored`,
      i === 0 ? null : p.ok && p.ms / base <= MAX_GROWTH,
    ),
  );
  return { rows, data: { batch: cfg.growBatch, points } };
}
