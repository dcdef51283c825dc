// Start the sandbox core for a benchmark through the project's own spawn helper, with an api key, a licence
// key and a signer key (all generated here, used only for this run), optionally under the CPU profiler.
import { randomBytes } from 'node:crypto';
import { startSandbox } from '../../dist/sandbox/spawn.js';
import { SCRYPT_CONFIG } from './hashes.js';

export const BENCH_API_KEY = `bench-${randomBytes(18).toString('hex')}`;
const LICENSE_KEY = `bench-licence-${randomBytes(8).toString('hex')}`;

export async function startBenchSandbox({ store, cpuProfDir } = {}) {
  const env = cpuProfDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfDir}` } : {};
  return startSandbox({ store, apiKeys: [BENCH_API_KEY], licenseKey: LICENSE_KEY, signerKey: SCRYPT_CONFIG.signerKey, env });
}
