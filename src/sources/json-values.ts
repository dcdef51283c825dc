// Read the JSON values of an export: the elements of a root array, of a root object's array (e.g. `users`),
// or the lines of NDJSON. Structural breaks throw UserErrors; a single bad element becomes a problem.
import type { Problem, RecordOrigin } from '../records/types.js';
import { UserError } from '../errors.js';
import { openBytes, readTextHead } from './input.js';
import { JsonArrayScanner } from './json-scan.js';
import { splitLineBatches } from './lines.js';

export type RawValue = { ok: true; value: unknown; origin: RecordOrigin } | { ok: false; problem: Problem };

export type JsonLayout = 'array' | 'object' | 'ndjson';

export interface JsonValuesOptions {
  /** The key of a root object holding the array of records, e.g. `users`. */
  arrayKey?: string;
  /** NDJSON is accepted (a root object whose first key is not arrayKey is read as NDJSON). Default true. */
  ndjson?: boolean;
}

/** Which layout the file uses, from its first bytes. */
export function sniffLayout(head: Buffer, arrayKey?: string): JsonLayout | null {
  const text = head.toString('utf8');
  const m = /^\s*([[{])/.exec(text);
  if (!m) return null;
  if (m[1] === '[') return 'array';
  if (arrayKey !== undefined && new RegExp(`^\\s*\\{\\s*"${arrayKey}"\\s*:`).test(text)) return 'object';
  // A first line that is a whole JSON value means NDJSON; otherwise (pretty-printed, minified or cut) the
  // file is one object, and the scanner reports where it breaks.
  const newline = text.indexOf('\n');
  try {
    const first: unknown = JSON.parse(newline < 0 ? text : text.slice(0, newline));
    // A whole small `{"version": 1, "users": [...]}` on one line is an object, not one NDJSON record.
    if (arrayKey !== undefined && isPlainObject(first) && Array.isArray(first[arrayKey])) return 'object';
    return 'ndjson';
  } catch {
    return arrayKey !== undefined ? 'object' : 'ndjson';
  }
}

/** The values of a JSON or NDJSON export, one array per chunk read. */
export async function* readJsonValues(path: string, options: JsonValuesOptions = {}): AsyncGenerator<RawValue[]> {
  const head = await readTextHead(path);
  let layout = sniffLayout(head, options.arrayKey);
  if (layout === null) {
    const c = head.toString('utf8').trimStart()[0] ?? '';
    const shown = /[\x21-\x7e]/.test(c) ? ` (its first character is "${c}", not "[" or "{")` : '';
    throw new UserError(`${path} is not JSON or NDJSON${shown}; check the file or pass the right --format`);
  }
  if (layout === 'ndjson' && options.ndjson === false) layout = 'object';
  if (layout === 'ndjson') {
    yield* readNdjson(path);
    return;
  }
  const scanner = new JsonArrayScanner(path, { arrayKey: options.arrayKey, acceptRootArray: true });
  for await (const chunk of openBytes(path)) {
    const elements = scanner.push(chunk);
    if (elements.length === 0) continue;
    const batch: RawValue[] = new Array(elements.length);
    for (let i = 0; i < elements.length; i++) {
      const el = elements[i]!;
      const origin: RecordOrigin = { file: path, index: el.index };
      try {
        batch[i] = { ok: true, value: JSON.parse(el.text), origin };
      } catch (err) {
        batch[i] = {
          ok: false,
          problem: jsonProblem(origin, `element ${el.index} (line ${el.line}) is not valid JSON: ${(err as Error).message}`),
        };
      }
    }
    yield batch;
  }
  scanner.end();
}

async function* readNdjson(path: string): AsyncGenerator<RawValue[]> {
  for await (const lines of splitLineBatches(openBytes(path), { name: path })) {
    const batch: RawValue[] = [];
    for (const { text, line } of lines) {
      if (text.trim() === '') continue;
      const origin: RecordOrigin = { file: path, line };
      try {
        batch.push({ ok: true, value: JSON.parse(text), origin });
      } catch (err) {
        batch.push({
          ok: false,
          problem: jsonProblem(origin, `line ${line} is not valid JSON (${(err as Error).message}); fix or remove the line`),
        });
      }
    }
    if (batch.length > 0) yield batch;
  }
}

function jsonProblem(origin: RecordOrigin, message: string): Problem {
  return { severity: 'error', rule: 'source.json', origin, message };
}

/** A problem for a JSON value that is not an object. */
export function notAnObject(origin: RecordOrigin, value: unknown): Problem {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  return { severity: 'error', rule: 'source.type', origin, message: `the record is ${kind}, not a JSON object; fix or remove it` };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
