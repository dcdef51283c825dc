// Rows of a database table exported as CSV with a header (`\copy (...) to 'f.csv' csv header`) or as JSON lines
// (`psql -At -c "select row_to_json(t) ..."`), streamed as column -> value maps; a JSON column that came out
// of a CSV as text is parsed on demand. Used by the Supabase reader; any table-shaped export can use it.
import type { Problem, RecordOrigin } from '../records/types.js';
import { UserError } from '../errors.js';
import { csvRecordBatches, parseCsvLine } from './csv.js';
import { cellCountMessage } from './damaged-rows.js';
import { openBytes, readTextHead } from './input.js';
import { isPlainObject, notAnObject, readJsonValues } from './json-values.js';
import { splitLineBatches } from './lines.js';

export interface TableRow {
  /** Column name -> value: strings from a CSV (empty cells left out), any JSON value from JSON lines. */
  values: Record<string, unknown>;
  origin: RecordOrigin;
}

/**
 * A row that could not be read whole carries the cells it has by column name (`partial`), so a reader can tie the
 * fault to the user the row names; those cells are not data to import.
 */
export type TableItem = { ok: true; row: TableRow } | { ok: false; problem: Problem; partial?: Record<string, string> };

/** The column names of a table file: the CSV header, or the keys of the first JSON line. */
export async function tableColumns(path: string): Promise<string[]> {
  const head = (await readTextHead(path)).toString('utf8').trimStart();
  const firstLine = head.split(/\r\n|\r|\n/, 1)[0] ?? '';
  if (head.startsWith('{') || head.startsWith('[')) {
    // Only the keys are needed: a cut line still shows them. A JSON array (the SQL editor's JSON download) may be
    // pretty-printed, so its whole head is looked at.
    const text = head.startsWith('{') ? firstLine : head;
    return [...new Set([...text.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"\s*:/g)].map((m) => m[1]!))];
  }
  const parsed = parseCsvLine(firstLine);
  return parsed.ok ? parsed.fields.map((f) => f.trim()) : [];
}

export async function* readTableRows(path: string): AsyncGenerator<TableItem[]> {
  const head = (await readTextHead(path)).toString('utf8').trimStart();
  if (head.startsWith('{') || head.startsWith('[')) {
    for await (const batch of readJsonValues(path)) {
      yield batch.map((raw) => {
        if (!raw.ok) return raw;
        if (!isPlainObject(raw.value)) return { ok: false, problem: notAnObject(raw.origin, raw.value) };
        return { ok: true, row: { values: raw.value, origin: raw.origin } };
      });
    }
    return;
  }
  let header: string[] | null = null;
  const records = csvRecordBatches(splitLineBatches(openBytes(path), { name: path }), { name: path });
  for await (const lines of records) {
    const batch: TableItem[] = [];
    for (const { text, line } of lines) {
      const origin: RecordOrigin = { file: path, line };
      const parsed = parseCsvLine(text);
      if (!header) {
        if (!parsed.ok) throw new UserError(`${path}:${line}: the header cannot be read (${parsed.reason})`);
        header = parsed.fields.map((f) => f.trim());
        continue;
      }
      if (!parsed.ok || parsed.fields.length !== header.length) {
        const message = !parsed.ok
          ? `the row cannot be read: ${parsed.reason}`
          : cellCountMessage(parsed.fields.length, header.length, 'export the table again', 'export the table again with `csv header`');
        const partial: Record<string, string> = {};
        header.forEach((name, i) => {
          if (parsed.fields[i] !== undefined && parsed.fields[i] !== '') partial[name] = parsed.fields[i]!;
        });
        batch.push({ ok: false, problem: rowProblem(origin, message), partial });
        continue;
      }
      const values: Record<string, unknown> = {};
      header.forEach((name, i) => {
        if (parsed.fields[i] !== '') values[name] = parsed.fields[i];
      });
      batch.push({ ok: true, row: { values, origin } });
    }
    if (batch.length > 0) yield batch;
  }
}

function rowProblem(origin: RecordOrigin, message: string): Problem {
  return { severity: 'error', rule: 'source.csv', origin, message };
}

/** A JSON column: an object from JSON lines, or its text from a CSV (parsed here). `undefined` when empty. */
export function jsonColumn(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== 'string') return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * A Postgres timestamp to epoch ms: `2024-01-15 10:20:30.123456+00` (CSV, text output) or
 * `2024-01-15T10:20:30.123456+00:00` (row_to_json); `infinity` is +Infinity. NaN when unreadable.
 */
export function pgTimestamp(value: unknown): number {
  if (typeof value !== 'string') return NaN;
  const text = value.trim();
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (!m) return NaN;
  const fraction = m[3] ? m[3].slice(0, 4) : '';
  let zone = m[4] ?? 'Z';
  if (/^[+-]\d{2}$/.test(zone)) zone += ':00';
  else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return Date.parse(`${m[1]}T${m[2]}${fraction}${zone}`);
}
