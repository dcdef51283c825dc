// The second pass of a cutover (issue 22): the mixed population migrated by a full `run`, then a newer export with
// 1% of the users touched (bench/lib/sync-data.js) brought in by `run --sync`: its time and requests against the
// full run's, the dry run before it, and a second sync of the same export (no request). BENCH_SYNC_USERS changes the
// size (default 1,000,000); BENCH_SYNC_STORE=DIR keeps the store and the first run's journal and figures in DIR and
// reuses them (the full run is most of the time): the store as the first run left it (a copy made then), so each
// reuse syncs the same delta again.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDataset } from '../lib/data.js';
import { runMigration } from '../lib/migrate.js';
import { startBenchSandbox, BENCH_API_KEY } from '../lib/sandbox.js';
import { writeNewerExport } from '../lib/sync-data.js';
import { row, fmt } from '../lib/table.js';

/** A sync's requests may be at most this share of the full run's (1% of the users touched: about 1%). */
const MAX_REQUEST_SHARE = 0.02;
const RUN_MAX_MB = 300;

export async function benchSync(ctx) {
  const { cfg, log } = ctx;
  const n = cfg.syncUsers;
  const data = await ensureDataset('mixed', n, { log });
  const kept = process.env.BENCH_SYNC_STORE || undefined;
  if (kept) mkdirSync(kept, { recursive: true });
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'auth-migrate-bench-sync-'));
  const store = join(dir, 'store.json');
  const journal = join(dir, 'journal.jsonl');
  const firstFile = join(dir, 'first.json');
  const firstStore = join(dir, 'store-first.json');
  const policy = ['--disabled', 'role:disabled'];
  const out = { users: n };
  try {
    let port;
    if (kept && existsSync(firstFile) && existsSync(firstStore)) {
      Object.assign(out, JSON.parse(readFileSync(firstFile, 'utf8')), { reused: dir });
      copyFileSync(firstStore, store); // the core as the first run left it, not as an earlier sync did
      for (const f of readdirSync(dir)) if (f.startsWith('sync-') || f.startsWith('store.json.')) rmSync(join(dir, f), { force: true });
      port = out.port;
      log(`sync: reusing the first run in ${dir}`);
    }
    if (!out.first) {
      // The full run, in a sandbox of its own: stopped after it, so the store it leaves can be copied whole.
      const first = await startBenchSandbox({ store });
      try {
        out.port = port = first.port;
        out.first = await runMigration({
          file: data.file,
          url: first.url,
          apiKey: BENCH_API_KEY,
          concurrency: cfg.concurrency,
          journal,
          extraArgs: policy,
        });
      } finally {
        await first.stop();
      }
      if (kept) {
        copyFileSync(store, firstStore);
        writeFileSync(firstFile, JSON.stringify({ port: out.port, first: out.first }, null, 2) + '\n');
      }
    }
    const sandbox = await startBenchSandbox({ store, port });
    try {
      log(`sync: full run of ${fmt.int(n)} users in ${fmt.s(out.first.wallMs)}, ${fmt.int(out.first.requests)} requests`);
      const newer = join(dir, 'newer.ndjson');
      out.changes = await writeNewerExport(data.file, newer);
      log(`sync: newer export with ${JSON.stringify(out.changes)}`);
      const sync = (extra, journalName) =>
        runMigration({
          file: newer,
          url: sandbox.url,
          apiKey: BENCH_API_KEY,
          concurrency: cfg.concurrency,
          journal: join(dir, journalName),
          extraArgs: ['--sync', '--remove-missing', ...policy, ...extra],
        });
      const dry = await runMigration({
        file: newer,
        url: sandbox.url,
        apiKey: BENCH_API_KEY,
        concurrency: cfg.concurrency,
        extraArgs: ['--sync', '--dry-run', '--from-journal', journal, '--remove-missing', ...policy],
      });
      out.dry = { wallMs: dry.wallMs, requests: dry.requests, peakRssMb: dry.peakRssMb, changes: dry.summary.changes };
      out.sync = await sync(['--from-journal', journal], 'sync-1.jsonl');
      out.again = await sync(['--from-journal', join(dir, 'sync-1.jsonl')], 'sync-2.jsonl');
      log(
        `sync: dry run ${fmt.s(out.dry.wallMs)}; sync ${fmt.s(out.sync.wallMs)}, ${fmt.int(out.sync.requests)} requests ` +
          `(${JSON.stringify(out.sync.summary.applied)}), peak ${fmt.mb(out.sync.peakRssMb)}; again ${fmt.s(out.again.wallMs)}, ${fmt.int(out.again.requests)} requests`,
      );
    } finally {
      await sandbox.stop();
    }
  } finally {
    if (!kept) rmSync(dir, { recursive: true, force: true });
  }
  return { rows: rowsOf(out, n), data: out };
}

function rowsOf(o, n) {
  const label = `Sync, ${fmt.int(n)} users with 1% changed${o.reused ? ' (first run reused)' : ''}`;
  const share = o.sync.requests / o.first.requests;
  const s = o.sync.summary;
  return [
    row(
      `${label}: time and requests vs the full run's`,
      `${fmt.s(o.sync.wallMs)} vs ${fmt.s(o.first.wallMs)}; ${fmt.int(o.sync.requests)} vs ${fmt.int(o.first.requests)} requests (${(share * 100).toFixed(2)}%)`,
      `<= ${MAX_REQUEST_SHARE * 100}% of the requests`,
      share <= MAX_REQUEST_SHARE && s.failed === 0,
    ),
    row(
      `${label}: dry run (delta and plan, no request)`,
      `${fmt.s(o.dry.wallMs)}, ${fmt.int(o.dry.requests ?? 0)} requests`,
      '0 requests',
      (o.dry.requests ?? 0) === 0,
    ),
    row(`${label}: sync peak RSS`, fmt.mb(o.sync.peakRssMb), `< ${RUN_MAX_MB} MB`, o.sync.peakRssMb < RUN_MAX_MB),
    row(
      `${label}: the same sync again`,
      `${fmt.s(o.again.wallMs)}, ${fmt.int(o.again.requests ?? 0)} requests`,
      '0 requests',
      (o.again.requests ?? 0) === 0,
    ),
  ];
}
