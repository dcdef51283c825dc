// Preloaded (node --import) into a client process to count the HTTP requests it really sends, retries
// included; at exit, {requests, byPath ("GET /users" -> n, queries left out), cpuMs, peakRssMb} is written to
// BENCH_REQUEST_COUNT_FILE. The core client sends through
// undici, whose every request is published on the 'undici:request:create' diagnostics channel; node:http
// requests (if any) are counted too.
import http from 'node:http';
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

let count = 0;
const byPath = {};
const tally = (method, path) => {
  const p = String(path ?? '/');
  const q = p.indexOf('?');
  const key = `${method ?? 'GET'} ${q < 0 ? p : p.slice(0, q)}`;
  byPath[key] = (byPath[key] ?? 0) + 1;
};
subscribe('undici:request:create', ({ request }) => {
  count++;
  tally(request?.method, request?.path);
});
const original = http.request;
http.request = function countedRequest(...args) {
  count++;
  const o = typeof args[0] === 'object' && !(args[0] instanceof URL) ? args[0] : {};
  tally(o.method, o.path);
  return original.apply(this, args);
};
syncBuiltinESMExports();
process.on('exit', () => {
  if (!process.env.BENCH_REQUEST_COUNT_FILE) return;
  const { user, system } = process.cpuUsage();
  let peakRssMb;
  try {
    peakRssMb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  } catch {
    // not Linux: no peak figure
  }
  writeFileSync(
    process.env.BENCH_REQUEST_COUNT_FILE,
    JSON.stringify({ requests: count, byPath, cpuMs: (user + system) / 1000, peakRssMb }),
  );
});
