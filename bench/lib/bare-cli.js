// One bare script (bench/lib/bare.js) as a process of its own, so that the real-core bench times it as it times the
// tool: from the process's start to its end, its own file read included. Usage:
//   node bench/lib/bare-cli.js KIND FILE URL CONCURRENCY     (api key in BENCH_BARE_API_KEY; prints {requests} as JSON)
import { readUsers, runBare } from './bare.js';

const [kind, file, url, concurrency] = process.argv.slice(2);
const users = await readUsers(file);
// "uploads done" on stderr once every batch is stored (staged): the bench times it as it times the tool's own line.
const onUploaded = () => process.stderr.write('uploads done\n');
const r = await runBare(kind, {
  url,
  apiKey: process.env.BENCH_BARE_API_KEY || undefined,
  users,
  concurrency: Number(concurrency),
  onUploaded,
});
console.log(JSON.stringify({ requests: r.requests, innerMs: r.wallMs }));
