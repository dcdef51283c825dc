// Read and validate: a Firebase export (with its hash config) and a canonical NDJSON file, each in a child
// process of its own so its peak RSS is the reader's and validator's alone.
import { fileURLToPath } from 'node:url';
import { ensureDataset } from '../lib/data.js';
import { runNode, lastJson } from '../lib/proc.js';
import { row, fmt } from '../lib/table.js';

const CHILD = fileURLToPath(new URL('../validate-child.js', import.meta.url));
const MIN_RPS = 150_000; // issue 14
const MAX_RSS_MB = 250; // issue 14

async function measure(label, args, n, cfg, log) {
  const nodeArgs = cfg.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cfg.profDir}`] : [];
  const r = await runNode(CHILD, args, { nodeArgs });
  const out = lastJson(r.stdout);
  if (r.code !== 0 || !out)
    throw new Error(`validate ${label}: child exited ${r.code}: ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  log(
    `${label}: ${out.records} records in ${fmt.s(out.ms)} (${fmt.rate(out.rps)}; CPU ${fmt.s(out.cpuMs)}), peak RSS ${fmt.mb(out.peakRssMb)}, errors ${out.errors}, warnings ${out.warnings}`,
  );
  if (out.records !== n) log(`  ! expected ${n} records, got ${out.records}`);
  if (out.errors > 0) log(`  ! the generated data has validation errors: ${out.firstProblems.join(' / ')}`);
  return out;
}

export async function benchValidate(cfg, log) {
  const n = cfg.validateUsers;
  const firebase = await ensureDataset('firebase', n, { log });
  const canonical = await ensureDataset('mixed', n, { log });
  const fb = await measure('firebase', [firebase.file, firebase.hashConfig], n, cfg, log);
  const nd = await measure('canonical ndjson', [canonical.file], n, cfg, log);
  const rows = [];
  for (const [name, m] of [
    [`Validate Firebase export (${fmt.int(n)} users)`, fb],
    [`Validate canonical NDJSON (${fmt.int(n)} users)`, nd],
  ]) {
    rows.push(row(`${name}: records/s`, fmt.rate(m.rps), `>= ${fmt.rate(MIN_RPS)}`, m.rps >= MIN_RPS && m.records === n));
    rows.push(row(`${name}: peak RSS`, fmt.mb(m.peakRssMb), `< ${MAX_RSS_MB} MB`, m.peakRssMb < MAX_RSS_MB));
  }
  return { rows, data: { users: n, firebase: fb, canonical: nd } };
}
