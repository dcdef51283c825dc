// Bench settings from the environment: BENCH_QUICK=1 shrinks every size (for development), BENCH_USERS sets
// the rehearsal size, BENCH_ONLY picks sections (comma-separated), BENCH_CONCURRENCY the runner's concurrency.
const quick = process.env.BENCH_QUICK === '1';
const int = (name, fallback) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(v)}`);
  return n;
};

export const SECTIONS = ['validate', 'rehearsal', 'email-password', 'via', 'latency', 'growing', 'million', 'sync', 'real-core', 'journal'];

export function loadConfig() {
  const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : SECTIONS;
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`BENCH_ONLY: unknown section ${s} (one of ${SECTIONS.join(', ')})`);
  return {
    quick,
    only,
    validateUsers: int('BENCH_VALIDATE_USERS', quick ? 50_000 : 1_000_000),
    users: int('BENCH_USERS', quick ? 5_000 : 100_000),
    concurrency: int('BENCH_CONCURRENCY', 32),
    viaUsers: int('BENCH_VIA_USERS', quick ? 1_000 : 10_000),
    latencyMs: 20,
    latencyConcurrency: 32,
    latencyUsers: int('BENCH_LATENCY_USERS', quick ? 2_000 : 10_000),
    growBatch: quick ? 2_000 : 10_000,
    growSizes: quick ? [0, 10_000, 50_000] : [0, 100_000, 500_000],
    growRepeats: int('BENCH_GROW_REPEATS', 3),
    millionUsers: int('BENCH_MILLION_USERS', quick ? 20_000 : 1_000_000),
    journalUsers: int('BENCH_JOURNAL_USERS', quick ? 50_000 : 200_000),
    syncUsers: int('BENCH_SYNC_USERS', quick ? 20_000 : 1_000_000),
    loopbackRequests: quick ? 10_000 : 50_000,
    cpuProf: process.env.BENCH_CPU_PROF === '1',
  };
}
