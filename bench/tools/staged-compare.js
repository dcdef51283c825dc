// Compare the journals and reports two runs of bench/tools/staged-cpu.js kept (same users, two builds): every line
// the same once what differs between any two runs is taken out: the run's header and end lines (run id, start time,
// port, fingerprint key), the fingerprints (keyed by that run's key), and the row ids the core made (random UUIDs,
// replaced by a placeholder: an id where an external id was expected, or the reverse, still shows). Lines are
// compared in order and, since the result lines of one run interleave with the read-back's timing, also sorted.
// Usage: node bench/tools/staged-compare.js <keepDir> <labelA> <labelB>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, a, b] = process.argv.slice(2);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function lines(label, kind) {
  return readFileSync(join(dir, `${label}.${kind}.ndjson`), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .filter((l) => !/^\{"type":"(run|end)"/.test(l))
    .map((l) => l.replace(/,"fp":"[A-Za-z0-9_-]+"/, '').replace(UUID, '<row-id>'));
}

let same = true;
const out = {};
for (const kind of ['journal', 'report']) {
  const x = lines(a, kind);
  const y = lines(b, kind);
  const inOrder = x.length === y.length && x.every((l, i) => l === y[i]);
  const xs = [...x].sort();
  const ys = [...y].sort();
  const sorted = xs.length === ys.length && xs.every((l, i) => l === ys[i]);
  const firstDiff = xs.findIndex((l, i) => l !== ys[i]);
  out[kind] = {
    lines: [x.length, y.length],
    sameInOrder: inOrder,
    sameSorted: sorted,
    ...(sorted ? {} : { firstDiff: [xs[firstDiff], ys[firstDiff]] }),
  };
  same &&= sorted;
}
console.log(JSON.stringify(out));
process.exitCode = same ? 0 : 1;
