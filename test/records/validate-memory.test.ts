// Validation memory stays bounded by the records, however many problems they have: an export concatenated with
// itself (every record of the second half a duplicate id and email, four problems each) is validated in a child
// process whose heap is capped well below what one Problem object per duplicate would take (about 2 KB each before
// the ClashLog: 40,000 duplicates reached 80 MB), and every problem is still counted and rendered on demand.
// Reads through the built code (dist/, made by `npm run build`).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/sources.js';
import { BCRYPT } from '../support/vectors.js';

const VALIDATE = fileURLToPath(new URL('../../dist/records/validate.js', import.meta.url));
const HEAP_MB = 40;
const USERS = 40_000;

let tmp: Awaited<ReturnType<typeof tempDir>>;
let file: string;
beforeAll(async () => {
  tmp = await tempDir();
  const lines: string[] = [];
  for (let i = 0; i < USERS; i++) lines.push(JSON.stringify({ id: `u${i}`, email: `user${i}@example.com`, password: { hash: BCRYPT } }));
  const once = lines.join('\n') + '\n';
  file = await tmp.file('twice.ndjson', once + once);
});
afterAll(() => tmp.cleanup());

async function validateInChild(path: string): Promise<{ code: number | null; out: string; err: string }> {
  const script = `
    const { validateSources, streamValidatedRecords } = await import(${JSON.stringify(VALIDATE)});
    const [path] = process.argv.slice(1);
    const report = await validateSources([path], { maxProblems: 10 });
    // The second pass replays the verdicts and renders each record's problems from the numbers kept.
    let invalid = 0, rendered = 0, sample;
    for await (const r of streamValidatedRecords([path], {}, report)) {
      if (!r.valid) invalid++;
      rendered += r.problems.length;
      if (r.origin.line === 1) sample = r.problems.map((p) => p.message);
    }
    const { records, valid, errors } = report.summary;
    process.stdout.write(JSON.stringify({ records, valid, errors, kept: report.problems.length, late: report.late.size, invalid, rendered, sample }));`;
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--input-type=module', '-e', script, path], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out, err };
}

describe('validation memory with duplicates', () => {
  it(`${USERS * 2} records, half of them duplicates, validate and replay in a ${HEAP_MB} MB heap`, async () => {
    const { code, out, err } = await validateInChild(file);
    expect(code, err.slice(-2000)).toBe(0);
    const result = JSON.parse(out) as Record<string, unknown>;
    // Each duplicate: its id and email now, and its twin's id and email late: 4 errors, all counted, 10 kept.
    expect(result).toMatchObject({ records: USERS * 2, valid: 0, errors: USERS * 4, kept: 10, late: USERS, invalid: USERS * 2 });
    expect(result['rendered']).toBe(USERS * 4);
    expect(result['sample']).toEqual([
      `the id is also used by ${file}:${USERS + 1} (id u0); it must be unique: fix or remove one of the two records`,
      `the email (of a user with a password) is also used by ${file}:${USERS + 1} (id u0); it must be unique: fix or remove one of the two records`,
    ]);
  }, 60_000);
});
