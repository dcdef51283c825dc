// Load a journal of N finished users (one password step each) in this process alone, with a full collection before
// and after, and report the JS heap plus typed arrays it holds per user. Usage: node bench/journal-child.js DIR N
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadJournal } from '../dist/engine/journal/journal.js';
import { collectGarbage } from '../dist/heap.js';

/** A function of its own, so that none of the journal's text is still referenced when the heap is measured. */
function writeJournal(path, n) {
  const identity = { sources: ['/data/users.ndjson'], target: 'http://core:3567 tenant=public app=public' };
  const lines = [JSON.stringify({ type: 'run', version: 1, identity, id: 'x', startedAt: new Date(0).toISOString() })];
  for (let i = 0; i < n; i++) {
    const rid = `0b5a4c1e-1d63-4b8e-9c4c-${String(i).padStart(12, '0')}`;
    lines.push(JSON.stringify({ type: 'step', user: `user-${i}`, step: 'password', result: 'created', ids: { recipeUserId: rid } }));
    lines.push(JSON.stringify({ type: 'user', user: `user-${i}`, outcome: 'imported' }));
  }
  writeFileSync(path, lines.join('\n') + '\n', { mode: 0o600 });
}

const [dir, nArg] = process.argv.slice(2);
const n = Number(nArg);
const path = join(dir, 'journal-finished.jsonl');
writeJournal(path, n);
const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
collectGarbage();
const before = used();
const t0 = performance.now();
const loaded = await loadJournal(path);
const ms = performance.now() - t0;
collectGarbage();
const bytesPerUser = (used() - before) / n;
const ok = loaded.users.size === n && loaded.users.openCount === 0;
process.stdout.write(JSON.stringify({ users: loaded.users.size, open: loaded.users.openCount, ok, ms, bytesPerUser }) + '\n');
