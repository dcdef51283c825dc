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

describe('CR-only files and the line cap', () => {
  it.each([1, 2, 3, 1000])('splits a file whose line breaks are lone CRs (classic Mac) with %i-byte chunks', async (size) => {
    expect(await lines('id,name\rbé,1\r\rlast', size)).toEqual([
      [1, 'id,name'],
      [2, 'bé,1'],
      [3, ''],
      [4, 'last'],
    ]);
    // A CRLF file is not taken for a CR-only one, even when a chunk ends between CR and LF.
    expect(await lines('a\r\nb\r\n', size)).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  it('stops at a line over the cap, naming the file and line, whatever the chunking', async () => {
    const read = async (text: string, size: number): Promise<string> => {
      const buf = Buffer.from(text);
      async function* chunks(): AsyncGenerator<Buffer> {
        for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
      }
      try {
        for await (const l of splitLines(chunks(), { name: 'f.csv', maxLineBytes: 100 })) void l;
        return 'no error';
      } catch (err) {
        return (err as Error).message;
      }
    };
    for (const size of [7, 64, 4096]) {
      expect(await read(`ok\n${'x'.repeat(100)}\n${'y'.repeat(101)}\nz\n`, size)).toMatch(
        /^f\.csv:3: the line starting at line 3 is longer than/,
      );
      // No line break at all (a damaged or binary file): stopped once the carried bytes pass the cap.
      expect(await read('q'.repeat(1000), size)).toMatch(/^f\.csv:1: /);
      expect(await read(`a\r${'w'.repeat(300)}`, size)).toMatch(/^f\.csv:2: /);
      expect(await read(`${'x'.repeat(100)}\r\n${'x'.repeat(100)}`, size)).toBe('no error');
    }
  });
});
