// A growing store: time for one batch of imports into a sandbox that already holds 0, 100,000 and 500,000
// users. The pre-populated stores are made once through the sandbox's own HTTP interface (so they are in its
// real format) and kept in bench/data/; each measurement runs on a fresh copy.
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATA_DIR, ensureDataset } from '../lib/data.js';
import { runMigration } from '../lib/migrate.js';
import { startBenchSandbox, BENCH_API_KEY } from '../lib/sandbox.js';
import { row, fmt } from '../lib/table.js';
import { loadClient } from './loopback.js';

const MAX_GROWTH = 1.5;
// The batch's users come after every pre-populated one, so they are all new.
const BATCH_OFFSET = 10_000_000;

async function prepopulatedStore(size, cfg, log) {
  const file = join(DATA_DIR, `store-${size}.json`);
  if (size === 0 || existsSync(file)) return size === 0 ? undefined : file;
  const dir = mkdtempSync(join(tmpdir(), 'auth-migrate-bench-store-'));
  const started = Date.now();
  const sandbox = await startBenchSandbox({ store: join(dir, 'store.json') });
  try {
    await loadClient(sandbox.url, size, 64);
  } finally {
    await sandbox.stop();
  }
  copyFileSync(join(dir, 'store.json'), `${file}.partial`);
  renameSync(`${file}.partial`, file);
  rmSync(dir, { recursive: true, force: true });
  log(`pre-populated a store with ${size} users in ${fmt.s(Date.now() - started)} (kept as ${file})`);
  return file;
}

export async function benchGrowing(ctx) {
  const { cfg, log } = ctx;
  const batch = await ensureDataset('email-password', cfg.growBatch, { offset: BATCH_OFFSET, log });
  const points = [];
  for (const size of cfg.growSizes) {
    const source = await prepopulatedStore(size, cfg, log);
    const dir = mkdtempSync(join(tmpdir(), 'auth-migrate-bench-grow-'));
    const store = join(dir, 'store.json');
    if (source) copyFileSync(source, store);
    const loadStarted = Date.now();
    const sandbox = await startBenchSandbox({ store });
    const loadMs = Date.now() - loadStarted;
    let run;
    try {
      run = await runMigration({ file: batch.file, url: sandbox.url, apiKey: BENCH_API_KEY, concurrency: cfg.concurrency });
    } finally {
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    const ms = run.summary.durationMs ?? run.wallMs;
    const ok = run.summary.imported === cfg.growBatch && run.summary.failed === 0;
    log(`store with ${size} users (started in ${fmt.s(loadMs)}): ${cfg.growBatch} imports in ${fmt.s(ms)}${ok ? '' : ` ! ${JSON.stringify(run.summary)}`}`);
    points.push({ stored: size, ms, wallMs: run.wallMs, sandboxStartMs: loadMs, ok, summary: run.summary });
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
