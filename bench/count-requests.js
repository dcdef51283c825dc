// Preloaded (node --import) into a client process to count the HTTP requests it really sends, retries
// included; at exit, {requests, cpuMs} is written to BENCH_REQUEST_COUNT_FILE.
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

let count = 0;
const original = http.request;
http.request = function countedRequest(...args) {
  count++;
  return original.apply(this, args);
};
syncBuiltinESMExports();
process.on('exit', () => {
  if (!process.env.BENCH_REQUEST_COUNT_FILE) return;
  const { user, system } = process.cpuUsage();
  writeFileSync(process.env.BENCH_REQUEST_COUNT_FILE, JSON.stringify({ requests: count, cpuMs: (user + system) / 1000 }));
});
