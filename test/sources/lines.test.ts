import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/sources/lines.js';

async function lines(text: string, size: number): Promise<Array<[number, string]>> {
  const buf = Buffer.from(text, 'utf8');
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
  }
  const out: Array<[number, string]> = [];
  for await (const l of splitLines(chunks())) out.push([l.line, l.text]);
  return out;
}

describe('splitLines', () => {
  it.each([1, 2, 3, 5, 1000])('splits LF and CRLF lines with %i-byte chunks, multi-byte characters intact', async (size) => {
    expect(await lines('a\r\nbé😀\n\nlast', size)).toEqual([
      [1, 'a'],
      [2, 'bé😀'],
      [3, ''],
      [4, 'last'],
    ]);
    expect(await lines('x\r\n', size)).toEqual([[1, 'x']]);
  });

  it('joins a line much longer than a chunk', async () => {
    const long = 'y'.repeat(50_000);
    expect(await lines(`${long}\nz`, 7)).toEqual([
      [1, long],
      [2, 'z'],
    ]);
  });
});
