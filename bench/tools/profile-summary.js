// Summarise a V8 .cpuprofile (from node --cpu-prof): self time by function and by file, heaviest first.
// Usage: node bench/tools/profile-summary.js <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFn = new Map();
const byFile = new Map();
for (const [id, us] of self) {
  const { callFrame: f } = byId.get(id);
  const where = f.url ? f.url.replace(/^file:\/\/.*?\/(dist|node_modules|bench)\//, '$1/') : '(native)';
  const fn = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  byFile.set(where, (byFile.get(where) ?? 0) + us);
}
const show = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  }
};
console.log(`total sampled ${(total / 1000).toFixed(0)} ms`);
// Inclusive time: a function's own samples plus those of everything it called (counted once per stack).
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (id) => {
  const f = byId.get(id).callFrame;
  const where = f.url ? f.url.replace(/^file:\/\/.*?\/(dist|node_modules|bench)\//, '$1/') : '(native)';
  return `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
};
const inclusive = new Map();
for (const [id, us] of self) {
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const name = label(at);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
}
show('self time by function', byFn);
show('self time by file', byFile);
if (process.env.INCLUSIVE) show('inclusive time by function', new Map([...inclusive].filter(([k]) => !k.startsWith('(root)'))));
