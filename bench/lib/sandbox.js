// Start the sandbox core for a benchmark through the project's own spawn helper, with an api key, a licence
// key and a signer key (all generated here, used only for this run), optionally under the CPU profiler.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../dist/sandbox/spawn.js';
import { SCRYPT_CONFIG } from './hashes.js';

export const BENCH_API_KEY = `bench-${randomBytes(18).toString('hex')}`;
const LICENSE_KEY = `bench-licence-${randomBytes(8).toString('hex')}`;
const PROFILER = fileURLToPath(new URL('../cpu-profile.js', import.meta.url));

/** CPU time (user + system, ms) a live process has used so far, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Resident set of a live process now and at its peak (MB), from /proc (Linux); undefined elsewhere. */
export function processRssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

export async function startBenchSandbox({ store, cpuProfDir, port, bulkImportIntervalSec } = {}) {
  // --cpu-prof is refused in NODE_OPTIONS, so the profiler is started by a preloaded module instead.
  const env = cpuProfDir ? { NODE_OPTIONS: `--import ${PROFILER}`, BENCH_CPU_PROF_DIR: cpuProfDir } : {};
  return startSandbox({
    store,
    port,
    apiKeys: [BENCH_API_KEY],
    licenseKey: LICENSE_KEY,
    signerKey: SCRYPT_CONFIG.signerKey,
    env,
    bulkImportIntervalSec,
  });
}
