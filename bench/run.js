// `npm run bench`: measures the workbench against this machine's limits, prints a Markdown table and writes
// bench/results.json with the machine and every number. See docs/benchmarks.md.
// Env: BENCH_QUICK=1 (small sizes), BENCH_USERS, BENCH_CONCURRENCY, BENCH_ONLY=validate,rehearsal,...,
// BENCH_CPU_PROF=1 (CPU profiles of every child into bench/data/profiles/, gitignored).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig, SECTIONS } from './lib/config.js';
import { machineInfo } from './lib/machine.js';
import { markdownTable, row } from './lib/table.js';
import { benchValidate } from './sections/validate.js';
import { benchRehearsal } from './sections/rehearsal.js';
import { benchLatency } from './sections/latency.js';
import { benchVia } from './sections/via.js';
import { benchGrowing } from './sections/growing.js';
import { benchMillion } from './sections/million.js';
import { benchSync } from './sections/sync.js';
import { benchRealCore } from './sections/real-core.js';
import { benchJournal } from './sections/journal.js';

const RESULTS = fileURLToPath(new URL('./results.json', import.meta.url));
const DOCS = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const DOCS_START = '<!-- RESULTS:START -->';
const DOCS_END = '<!-- RESULTS:END -->';
const log = (line) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

if (!existsSync(fileURLToPath(new URL('../dist/cli.js', import.meta.url)))) {
  log('dist/ is missing: run `npm run bench` (it builds first) or `npm run build`.');
  process.exit(2);
}

const cfg = loadConfig();
cfg.profDir = fileURLToPath(new URL(`./data/profiles/${Date.now()}`, import.meta.url));
if (cfg.cpuProf) mkdirSync(cfg.profDir, { recursive: true });
const machine = machineInfo();
log(
  `${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGb} GB, node ${machine.node}, load ${machine.loadAverage.join(' ')}${cfg.quick ? ' (QUICK mode)' : ''}`,
);

const ctx = { cfg, log, cache: {} };
const plan = {
  validate: () => benchValidate(cfg, log),
  rehearsal: () => benchRehearsal(ctx, 'mixed'),
  'email-password': () => benchRehearsal(ctx, 'email-password'),
  via: () => benchVia(ctx),
  latency: () => benchLatency(ctx),
  growing: () => benchGrowing(ctx),
  million: () => benchMillion(ctx),
  sync: () => benchSync(ctx),
  'real-core': () => benchRealCore(ctx),
  journal: () => benchJournal(cfg, log),
};

const rows = [];
const sections = {};
const started = Date.now();
for (const name of cfg.only) {
  log(`--- ${name}`);
  const t0 = Date.now();
  try {
    const out = await plan[name]();
    rows.push(...out.rows);
    sections[name] = { ...out.data, rows: out.rows, elapsedMs: Date.now() - t0 };
  } catch (err) {
    log(`${name} failed: ${err.stack ?? err}`);
    rows.push(row(`${name}: could not run`, String(err.message ?? err).slice(0, 120), null, false));
    sections[name] = { error: String(err.message ?? err), elapsedMs: Date.now() - t0 };
  }
}

const table = markdownTable(rows);
process.stdout.write(`\n${table}\n\n`);
const results = {
  machine: { ...machine, loadAverageAtEnd: machineInfo().loadAverage },
  config: { ...cfg, profDir: cfg.cpuProf ? cfg.profDir : undefined },
  elapsedMs: Date.now() - started,
  table,
  rows,
  sections,
};
writeFileSync(`${RESULTS}.tmp`, JSON.stringify(results, null, 2) + '\n');
renameSync(`${RESULTS}.tmp`, RESULTS);
log(`wrote ${RESULTS} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
// A full run (every section, full sizes) also refreshes the table in docs/benchmarks.md.
if (!cfg.quick && cfg.only.length === SECTIONS.length && updateDocs(table, machine)) log(`updated ${DOCS}`);

function updateDocs(table, m) {
  if (!existsSync(DOCS)) return false;
  const text = readFileSync(DOCS, 'utf8');
  const start = text.indexOf(DOCS_START);
  const end = text.indexOf(DOCS_END);
  if (start < 0 || end < start) return false;
  const when = m.date.slice(0, 16).replace('T', ' ');
  const block = [
    DOCS_START,
    `Measured ${when} UTC on ${m.cpus} x ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}, ${m.platform}` +
      `${m.commit ? `, commit ${m.commit}` : ''}; load average at start ${m.loadAverage.join(' ')}.`,
    '',
    table,
    '',
  ].join('\n');
  writeFileSync(DOCS, text.slice(0, start) + block + text.slice(end));
  return true;
}
process.exitCode = rows.some((r) => r.pass === false) ? 1 : 0;
