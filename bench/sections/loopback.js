// The physical limit: the project's core client against a minimal node:http server in another process,
// at the runner's concurrency, with a bare node:http keep-alive client's figures beside it. Also the same client against the sandbox itself, to split runner overhead
// from sandbox cost when a target is missed.
import { fileURLToPath } from 'node:url';
import { runNode, startServer, lastJson } from '../lib/proc.js';
import { BENCH_API_KEY } from '../lib/sandbox.js';

const SERVER = fileURLToPath(new URL('../loopback-server.js', import.meta.url));
const CLIENT = fileURLToPath(new URL('../load-client.js', import.meta.url));

/** Run the load client against `url`: {requests, ms, rps, errors, statuses}. */
export async function loadClient(url, requests, concurrency, { offset = 0, bare = false } = {}) {
  const env = { BENCH_API_KEY, BENCH_CLIENT: bare ? 'bare' : '' };
  const r = await runNode(CLIENT, [url, String(requests), String(concurrency), String(offset)], { env });
  const out = lastJson(r.stdout);
  if (r.code !== 0 || !out) throw new Error(`load client exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  if (out.errors > 0) throw new Error(`load client: ${out.errors} of ${requests} requests failed: ${r.stderr.trim()}`);
  return out;
}

/**
 * Raw loopback request rate at this concurrency, measured afresh right before each rehearsal it is compared
 * with: a busy moment of the machine then weighs on both sides of the ratio alike.
 */
export async function rawLoopback(ctx, concurrency) {
  const server = await startServer(SERVER);
  try {
    const out = await loadClient(server.url, ctx.cfg.loopbackRequests, concurrency);
    // The floor beside it: a bare node:http keep-alive loop against the same server (no retries, timers or mapping).
    const bare = await loadClient(server.url, ctx.cfg.loopbackRequests, concurrency, { bare: true });
    ctx.log(
      `raw loopback (node:http server, fixed JSON) at concurrency ${concurrency}: core client ${Math.round(out.rps)} requests/s ` +
        `(${out.cpuUsPerRequest.toFixed(1)} us CPU/request), bare node:http client ${Math.round(bare.rps)} requests/s ` +
        `(${bare.cpuUsPerRequest.toFixed(1)} us CPU/request)`,
    );
    return { ...out, bare };
  } finally {
    await server.stop();
  }
}
