// CSV records across lines (quoted line breaks, legal in every vendor's CSV), the quote state that decides where a
// record ends, and the cap on a record that never closes.
import { describe, expect, it } from 'vitest';
import { csvRecordBatches, endsInsideQuotes, parseCsvLine } from '../../src/sources/csv.js';
import type { TextLine } from '../../src/sources/lines.js';

async function records(text: string, maxLineBytes?: number): Promise<Array<[number, string[] | string]>> {
  async function* lines(): AsyncGenerator<TextLine[]> {
    yield text.split('\n').map((t, i) => ({ text: t, line: i + 1 }));
  }
  const out: Array<[number, string[] | string]> = [];
  for await (const batch of csvRecordBatches(lines(), { name: 'f.csv', maxLineBytes }))
    for (const r of batch) {
      const parsed = parseCsvLine(r.text);
      out.push([r.line, parsed.ok ? parsed.fields : `${parsed.reason} after ${JSON.stringify(parsed.fields)}`]);
    }
  return out;
}

describe('CSV records', () => {
  it('joins a quoted field with line breaks into one record that keeps its first line number', async () => {
    expect(await records('id,note\nu1,"two\nlines"\nu2,"a ""quote""\n\nand a blank line"\n\nu3,plain')).toEqual([
      [1, ['id', 'note']],
      [2, ['u1', 'two\nlines']],
      [4, ['u2', 'a "quote"\n\nand a blank line']],
      [8, ['u3', 'plain']],
    ]);
  });

  it('reads a quote inside an unquoted field as a character, as parseCsvLine does', async () => {
    expect(endsInsideQuotes('a,b"c,d', false)).toBe(false);
    expect(endsInsideQuotes('a,"b,c', false)).toBe(true);
    expect(endsInsideQuotes('a,"b""', false)).toBe(true);
    expect(endsInsideQuotes('x"', true)).toBe(false);
    expect(endsInsideQuotes('x"",y', true)).toBe(true);
    expect(endsInsideQuotes('x","', true)).toBe(true);
    expect(await records('u1,5"10,ok\nu2,b')).toEqual([
      [1, ['u1', '5"10', 'ok']],
      [2, ['u2', 'b']],
    ]);
  });

  it('gives a record still open at the end as it is, with the cells read before the fault', async () => {
    expect(await records('id,note\nu9,"cut short')).toEqual([
      [1, ['id', 'note']],
      [2, 'a quoted field is not closed (the file may be cut short) after ["u9"]'],
    ]);
  });

  it('stops at a record that spans more than the cap (a quote never closed)', async () => {
    await expect(records(`id,note\nu1,"${'x\n'.repeat(100)}`, 120)).rejects.toThrow(
      /^f\.csv:2: the CSV row \(a quoted field spanning lines\) starting at line 2 is longer than/,
    );
  });
});
