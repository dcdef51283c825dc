// Read and validate: a Firebase export (with its hash config), a canonical NDJSON file, and a Firebase export
// concatenated with itself (every record a duplicate), each in a child process of its own so its peak RSS is the
// reader's and validator's alone.
import { fileURLToPath } from 'node:url';
import { ensureDataset } from '../lib/data.js';
import { runNode, lastJson } from '../lib/proc.js';
import { row, fmt } from '../lib/table.js';

const CHILD = fileURLToPath(new URL('../validate-child.js', import.meta.url));
const MIN_RPS = 150_000; // issue 14
const MAX_RSS_MB = 250; // issue 14
// Issue 21: a file of duplicates (an export concatenated with itself) keeps its problems as numbers, so memory
// grows with the records, as for any file of that many records, not with problem objects (it reached 3.28 GB).
const MAX_TWICE_RSS_MB = 500;

async function measure(label, args, n, cfg, log, duplicates = false) {
  const nodeArgs = cfg.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cfg.profDir}`] : [];
  const r = await runNode(CHILD, args, { nodeArgs });
  const out = lastJson(r.stdout);
  if (r.code !== 0 || !out)
    throw new Error(`validate ${label}: child exited ${r.code}: ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  log(
    `${label}: ${out.records} records in ${fmt.s(out.ms)} (${fmt.rate(out.rps)}; CPU ${fmt.s(out.cpuMs)}), peak RSS ${fmt.mb(out.peakRssMb)}, errors ${out.errors}, warnings ${out.warnings}`,
  );
  if (out.records !== n) log(`  ! expected ${n} records, got ${out.records}`);
  if (out.errors > 0 && !duplicates) log(`  ! the generated data has validation errors: ${out.firstProblems.join(' / ')}`);
  return out;
}

export async function benchValidate(cfg, log) {
  const n = cfg.validateUsers;
  const firebase = await ensureDataset('firebase', n, { log });
  const canonical = await ensureDataset('mixed', n, { log });
  const fb = await measure('firebase', [firebase.file, firebase.hashConfig], n, cfg, log);
  const nd = await measure('canonical ndjson', [canonical.file], n, cfg, log);
  const twice = await ensureDataset('firebase-twice', 2 * n, { log });
  const tw = await measure('firebase twice', [twice.file, twice.hashConfig], 2 * n, cfg, log, true);
  const rows = [];
  for (const [name, m] of [
    [`Validate Firebase export (${fmt.int(n)} users)`, fb],
    [`Validate canonical NDJSON (${fmt.int(n)} users)`, nd],
  ]) {
    rows.push(row(`${name}: records/s`, fmt.rate(m.rps), `>= ${fmt.rate(MIN_RPS)}`, m.rps >= MIN_RPS && m.records === n));
    rows.push(row(`${name}: peak RSS`, fmt.mb(m.peakRssMb), `< ${MAX_RSS_MB} MB`, m.peakRssMb < MAX_RSS_MB));
  }
  rows.push(
    row(
      `Validate a Firebase export of ${fmt.int(n)} users concatenated with itself (${fmt.int(2 * n)} records, ${fmt.int(n)} duplicates): peak RSS`,
      fmt.mb(tw.peakRssMb),
      `< ${MAX_TWICE_RSS_MB} MB`,
      tw.peakRssMb < MAX_TWICE_RSS_MB && tw.records === 2 * n && tw.invalid === 2 * n,
    ),
  );
  return { rows, data: { users: n, firebase: fb, canonical: nd, firebaseTwice: tw } };
}
