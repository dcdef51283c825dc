// Start the sandbox core for a benchmark through the project's own spawn helper, with an api key, a licence
// key and a signer key (all generated here, used only for this run), optionally under the CPU profiler.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../dist/sandbox/spawn.js';
import { SCRYPT_CONFIG } from './hashes.js';

export const BENCH_API_KEY = `bench-${randomBytes(18).toString('hex')}`;
const LICENSE_KEY = `bench-licence-${randomBytes(8).toString('hex')}`;
const PROFILER = fileURLToPath(new URL('../cpu-profile.js', import.meta.url));

export async function startBenchSandbox({ store, cpuProfDir } = {}) {
  // --cpu-prof is refused in NODE_OPTIONS, so the profiler is started by a preloaded module instead.
  const env = cpuProfDir ? { NODE_OPTIONS: `--import ${PROFILER}`, BENCH_CPU_PROF_DIR: cpuProfDir } : {};
  return startSandbox({ store, apiKeys: [BENCH_API_KEY], licenseKey: LICENSE_KEY, signerKey: SCRYPT_CONFIG.signerKey, env });
}
