// Preloaded (node --import) into a client process, the tool or a bare script, to tell whether it keeps its requests
// in flight: every 20 ms it samples how many undici requests are under way. At exit it appends one JSON line to
// INFLIGHT_FILE: the mean in flight, the share of samples with fewer than 12, the histogram (0-19), and the requests
// completed in each second. docs/benchmarks.md ("what decides the section's ratios") used it against the reference.
// Usage: INFLIGHT_FILE=/tmp/x.jsonl node --import ./bench/tools/inflight.js bin/auth-migrate.js run ...
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

let inflight = 0;
let done = 0;
let t0;
const hist = new Array(40).fill(0);
const doneBySecond = [];
subscribe('undici:request:create', () => {
  t0 ??= performance.now();
  inflight++;
});
const end = () => {
  inflight--;
  done++;
};
subscribe('undici:request:trailers', end);
subscribe('undici:request:error', end);
setInterval(() => {
  if (t0 === undefined) return;
  hist[Math.min(hist.length - 1, inflight)]++;
  doneBySecond[Math.floor((performance.now() - t0) / 1000)] = done;
}, 20).unref();
process.on('exit', () => {
  if (!process.env.INFLIGHT_FILE) return;
  const samples = hist.reduce((a, b) => a + b, 0) || 1;
  const mean = hist.reduce((a, b, i) => a + b * i, 0) / samples;
  const under12 = hist.slice(0, 12).reduce((a, b) => a + b, 0) / samples;
  const perSecond = doneBySecond.map((v, i) => (v ?? 0) - (doneBySecond[i - 1] ?? 0));
  const line = { samples, meanInFlight: mean, shareUnder12: under12, hist: hist.slice(0, 20), completedPerSecond: perSecond };
  writeFileSync(process.env.INFLIGHT_FILE, JSON.stringify(line) + '\n', { flag: 'a' });
});
