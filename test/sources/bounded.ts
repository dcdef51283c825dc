// Reading a large generated export in a child process whose heap is capped well below what the records would
// take: a reader that kept them (or the file) runs out of memory; a streaming one counts them all. Shared by
// the reader tests of the vendor formats. Reads through the built readers (dist/, made by `npm run build`).
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const READERS = fileURLToPath(new URL('../../dist/sources/index.js', import.meta.url));
export const HEAP_MB = 48;

export async function expectBoundedRead(
  path: string,
  options: { format?: string; hashConfigPath?: string },
  expected: number,
): Promise<void> {
  const size = (await stat(path)).size;
  // Records in memory take several times their text: a file this size does not fit the capped heap as records.
  expect(size).toBeGreaterThan(HEAP_MB * 1024 * 1024 * 0.6);
  const script = `
    import { readFileSync } from 'node:fs';
    const { readSourceBatches, parseHashConfig } = await import(${JSON.stringify(READERS)});
    const [path, format, hc] = process.argv.slice(1);
    const options = {};
    if (format) options.format = format;
    if (hc) options.hashConfig = parseHashConfig(readFileSync(hc, 'utf8'));
    let records = 0, errors = 0;
    for await (const batch of readSourceBatches([path], options))
      for (const item of batch) {
        if (item.kind === 'record') { records++; if (item.value.problems.some((p) => p.severity === 'error')) errors++; }
        else errors++;
      }
    process.stdout.write(JSON.stringify({ records, errors }));`;
  const args = [
    `--max-old-space-size=${HEAP_MB}`,
    '--input-type=module',
    '-e',
    script,
    path,
    options.format ?? '',
    options.hashConfigPath ?? '',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, err.slice(-2000)).toBe(0);
  expect(JSON.parse(out)).toEqual({ records: expected, errors: 0 });
}
