// Drive a core (or the raw loopback server) with the project's own core client at a fixed concurrency:
// one password-hash import per request, nothing else. Prints one JSON line {requests, ms, rps, errors}.
// Usage: node bench/load-client.js <url> <requests> <concurrency> [offset]   (api key from BENCH_API_KEY)
import { createCoreClient } from '../dist/core-client/index.js';

const [url, nArg, cArg, offArg] = process.argv.slice(2);
const n = Number(nArg);
const concurrency = Number(cArg);
const offset = Number(offArg ?? 0);
const hash = '$2b$10$q3nXZZo3lNpYQTYJZiQFZuZ15TLLDGexSiBaEx11YcDllNXd7D3e2';
const client = createCoreClient({ url, apiKey: process.env.BENCH_API_KEY, maxSockets: concurrency });

let next = 0;
let errors = 0;
const statuses = {};
async function worker() {
  while (next < n) {
    const i = offset + next++;
    try {
      const r = await client.importPasswordHash({ email: `load${i}@bench.example`, passwordHash: hash });
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    } catch (err) {
      if (errors++ === 0) process.stderr.write(`load-client: ${err.message}\n`);
    }
  }
}
// Warm the connections up so the measurement is the steady state.
await Promise.all(Array.from({ length: concurrency }, () => client.hello().catch(() => {})));
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
client.close();
process.stdout.write(JSON.stringify({ requests: n, ms, rps: (n * 1000) / ms, errors, statuses }) + '\n');
