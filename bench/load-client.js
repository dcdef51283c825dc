// Drive a core (or the raw loopback server) at a fixed concurrency: one password-hash import per request,
// nothing else. By default with the project's own core client (undici); with BENCH_CLIENT=bare, a bare
// node:http keep-alive loop (the floor a node:http client could reach: no retries, timers or error mapping).
// Prints one JSON line {client, requests, ms, rps, cpuUsPerRequest, errors, statuses}; CPU is this process's
// (process.cpuUsage) over the measured phase only.
// Usage: node bench/load-client.js <url> <requests> <concurrency> [offset]   (api key from BENCH_API_KEY)
import http from 'node:http';
import { createCoreClient } from '../dist/core-client/index.js';

const [url, nArg, cArg, offArg] = process.argv.slice(2);
const n = Number(nArg);
const concurrency = Number(cArg);
const offset = Number(offArg ?? 0);
const bare = process.env.BENCH_CLIENT === 'bare';
const hash = '$2b$10$q3nXZZo3lNpYQTYJZiQFZuZ15TLLDGexSiBaEx11YcDllNXd7D3e2';
const send = bare ? bareClient() : projectClient();

function projectClient() {
  const client = createCoreClient({ url, apiKey: process.env.BENCH_API_KEY, maxSockets: concurrency });
  return {
    hello: () => client.hello(),
    importHash: (email) => client.importPasswordHash({ email, passwordHash: hash }),
    close: () => client.close(),
  };
}

function bareClient() {
  const u = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency, scheduling: 'lifo' });
  const base = u.pathname.replace(/\/+$/, '');
  const request = (method, path, body) =>
    new Promise((resolve, reject) => {
      const headers = { 'cdi-version': '5.4' };
      if (process.env.BENCH_API_KEY) headers['api-key'] = process.env.BENCH_API_KEY;
      if (body) Object.assign(headers, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
      const req = http.request({ hostname: u.hostname, port: u.port, method, path: base + path, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    hello: () => request('GET', '/hello'),
    importHash: async (email) =>
      JSON.parse(await request('POST', '/recipe/user/passwordhash/import', Buffer.from(JSON.stringify({ email, passwordHash: hash })))),
    close: () => agent.destroy(),
  };
}

let next = 0;
let errors = 0;
const statuses = {};
async function worker() {
  while (next < n) {
    const i = offset + next++;
    try {
      const r = await send.importHash(`load${i}@bench.example`);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    } catch (err) {
      if (errors++ === 0) process.stderr.write(`load-client: ${err.message}\n`);
    }
  }
}
// Warm the connections up so the measurement is the steady state.
await Promise.all(Array.from({ length: concurrency }, () => send.hello().catch(() => {})));
const cpu0 = process.cpuUsage();
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpu0);
send.close();
process.stdout.write(
  JSON.stringify({
    client: bare ? 'bare node:http' : 'core client (undici)',
    requests: n,
    ms,
    rps: (n * 1000) / ms,
    cpuUsPerRequest: (cpu.user + cpu.system) / n,
    errors,
    statuses,
  }) + '\n',
);
