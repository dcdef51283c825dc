// The journal's memory: a journal of finished users loaded in a process of its own (the resume of a large run
// holds every finished user), in JS heap and typed-array bytes per user.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode, lastJson } from '../lib/proc.js';
import { row, fmt } from '../lib/table.js';

const CHILD = fileURLToPath(new URL('../journal-child.js', import.meta.url));
// 118-128 measured alone; the step maps the packed form replaced took about 250 per user.
const MAX_BYTES_PER_USER = 140;

export async function benchJournal(cfg, log) {
  const n = cfg.journalUsers;
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-journal-'));
  try {
    const r = await runNode(CHILD, [dir, String(n)]);
    const out = lastJson(r.stdout);
    if (r.code !== 0 || !out) throw new Error(`journal: child exited ${r.code}: ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
    log(
      `journal: ${fmt.int(out.users)} finished users loaded in ${fmt.s(out.ms)}, ${out.bytesPerUser.toFixed(1)} bytes each, ${out.open} with step maps`,
    );
    const label = `Journal of ${fmt.int(n)} finished users loaded: JS heap and typed arrays per user`;
    const rows = [
      row(label, `${out.bytesPerUser.toFixed(0)} B`, `< ${MAX_BYTES_PER_USER} B`, out.ok && out.bytesPerUser < MAX_BYTES_PER_USER),
    ];
    return { rows, data: out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
