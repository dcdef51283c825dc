import { describe, expect, it } from 'vitest';
import { JsonArrayScanner, type ScannedElement } from '../../src/sources/json-scan.js';
import { UserError } from '../../src/errors.js';

function scan(text: string | Buffer, chunkSize: number, arrayKey?: string): ScannedElement[] {
  const buf = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  const scanner = new JsonArrayScanner('f.json', { arrayKey });
  const out: ScannedElement[] = [];
  for (let i = 0; i < buf.length; i += chunkSize) out.push(...scanner.push(buf.subarray(i, i + chunkSize)));
  scanner.end();
  return out;
}

const TRICKY = [
  { id: 'a', s: 'quote " and backslash \\ and ] } [ { , inside' },
  { id: 'b', s: 'ends with backslash \\', n: [1, [2, [3]], { x: '}' }] },
  'a string element with "quotes"',
  12.5e3,
  true,
  null,
  [],
  {},
  { id: 'ü', s: 'multi-byte: é ✓ 😀 中文' },
  { id: 'esc', s: '\u0000\u001f\\"\\\\' },
];

describe('JsonArrayScanner', () => {
  it.each([1, 2, 3, 7, 64, 100000])('finds every element of a root array with %i-byte chunks', (size) => {
    const text = JSON.stringify(TRICKY, null, size % 2 ? 2 : 0);
    const els = scan(text, size);
    expect(els.map((e) => JSON.parse(e.text))).toEqual(TRICKY);
    expect(els.map((e) => e.index)).toEqual(TRICKY.map((_, i) => i));
  });

  it.each([1, 5, 4096])('reads the array under the key among other keys (%i-byte chunks)', (size) => {
    const doc = { kind: 'x', nested: { users: ['not these'] }, users: TRICKY, after: [1, { users: 2 }], last: 'users' };
    expect(scan(JSON.stringify(doc), size, 'users').map((e) => JSON.parse(e.text))).toEqual(TRICKY);
    expect(scan(JSON.stringify(doc, null, 1), size, 'users').map((e) => JSON.parse(e.text))).toEqual(TRICKY);
  });

  it('counts lines and byte offsets of elements', () => {
    const text = '[\n  {"a": 1},\n  {"b": 2}\n]';
    const els = scan(text, 3);
    expect(els.map((e) => [e.line, e.offset])).toEqual([
      [2, 4],
      [3, 16],
    ]);
    expect(text.slice(16, 24)).toBe('{"b": 2}');
  });

  it.each([1, 3, 1000])('reports truncation with the byte offset and element (%i-byte chunks)', (size) => {
    const text = JSON.stringify([{ a: 1 }, { b: 'two' }, { c: 3 }]);
    const cut = text.slice(0, text.indexOf('{"c"') + 4);
    expect(() => scan(cut, size)).toThrow(UserError);
    expect(() => scan(cut, size)).toThrow(
      `f.json: the JSON ends early at byte ${cut.length} (line 1) inside element 2 (which starts at byte ${text.indexOf('{"c"')}`,
    );
  });

  it('reports truncation between elements and inside the root object', () => {
    expect(() => scan('[{"a":1},', 2)).toThrow(/ends early at byte 9 \(line 1\) before the closing bracket/);
    expect(() => scan('{"users": [{"a":1}', 2, 'users')).toThrow(/ends early at byte 18/);
    expect(() => scan('{"kind": "x", ', 2, 'users')).toThrow(/ends early/);
  });

  it('reports structural errors with their position', () => {
    expect(() => scan('[{"a":1} {"b":2}]', 4)).toThrow(/expected `,` or `]` between array elements at byte 9/);
    expect(() => scan('[,{"a":1}]', 4)).toThrow(/unexpected `,` in the array at byte 1/);
    expect(() => scan('[1] trailing', 4)).toThrow(/unexpected `t` after the end of the JSON at byte 4/);
    expect(() => scan('  hello', 4)).toThrow(/expected `\[` to start the JSON, found `h` at byte 2/);
    expect(() => scan('{"users": {}}', 4, 'users')).toThrow(/"users" is not an array at byte 10/);
    expect(() => scan('{"kind": 1}', 4, 'users')).toThrow(/no "users" array/);
    expect(() => scan('   \n ', 4)).toThrow(/contains no JSON/);
  });

  it('hands a bad element to the caller as text, without losing the structure', () => {
    const els = scan('[{"a": tru}, {"b": 2}]', 3);
    expect(els.map((e) => e.text)).toEqual(['{"a": tru}', '{"b": 2}']);
    expect(() => JSON.parse(els[0]!.text)).toThrow();
  });

  it('keeps multi-byte characters intact when a chunk splits them', () => {
    const text = Buffer.from(JSON.stringify([{ s: '😀😀😀 é' }]), 'utf8');
    expect(JSON.parse(scan(text, 1)[0]!.text)).toEqual({ s: '😀😀😀 é' });
  });

  it('matches JSON.parse on random documents split at random places', () => {
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pieces = ['a', '\\', '"', '\\"', '{', '}', '[', ']', ',', ':', ' ', 'é', '😀', '\n', 'users'];
    const str = (): string => Array.from({ length: Math.floor(rand() * 8) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 2 || r < 0.3) return str();
      if (r < 0.4) return Math.floor(rand() * 1000) / 10;
      if (r < 0.45) return null;
      if (r < 0.7) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [str(), value(depth + 1)]));
    };
    for (let round = 0; round < 200; round++) {
      const users = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => value(0));
      const doc = JSON.stringify({ [str()]: value(1), users, [str() + 'x']: value(1) }, null, round % 3 === 0 ? 1 : 0);
      const buf = Buffer.from(doc, 'utf8');
      const scanner = new JsonArrayScanner('f.json', { arrayKey: 'users' });
      const got: unknown[] = [];
      for (let i = 0; i < buf.length;) {
        const size = 1 + Math.floor(rand() * 40);
        for (const el of scanner.push(buf.subarray(i, i + size))) got.push(JSON.parse(el.text));
        i += size;
      }
      scanner.end();
      expect(got).toEqual(JSON.parse(doc).users);
    }
  });
});
