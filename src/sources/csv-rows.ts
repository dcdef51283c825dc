// CSV files as rows of fields with their line numbers, streamed one batch per chunk read: the shared layer
// of the CSV readers (Firebase `auth:export --format=csv`, Clerk). Quoted fields may span lines; blank lines are
// skipped, and `#` comment lines when asked (Clerk's samples carry one); a row that cannot be parsed becomes a
// problem naming it, with the fields read before the fault so the reader can tie it to its user.
import type { Problem, RecordOrigin } from '../records/types.js';
import { csvRecordBatches, parseCsvLine } from './csv.js';
import { openBytes } from './input.js';
import { splitLineBatches } from './lines.js';

export type CsvRow = { ok: true; fields: string[]; origin: RecordOrigin } | { ok: false; problem: Problem; fields: string[] };

export interface CsvRowOptions {
  /** Skip lines whose first non-blank character is `#`. */
  comments?: boolean;
}

export async function* readCsvRows(path: string, options: CsvRowOptions = {}): AsyncGenerator<CsvRow[]> {
  const records = csvRecordBatches(splitLineBatches(openBytes(path), { name: path }), { name: path, comments: options.comments });
  for await (const lines of records) {
    const batch: CsvRow[] = [];
    for (const { text, line } of lines) {
      const origin: RecordOrigin = { file: path, line };
      const parsed = parseCsvLine(text);
      if (parsed.ok) batch.push({ ok: true, fields: parsed.fields, origin });
      else
        batch.push({
          ok: false,
          problem: { severity: 'error', rule: 'source.csv', origin, message: `the row cannot be read: ${parsed.reason}; fix the line` },
          fields: parsed.fields,
        });
    }
    if (batch.length > 0) yield batch;
  }
}

/** `true`/`false` as written by exporters (any case); undefined for an empty field, null for anything else. */
export function csvBool(text: string): boolean | undefined | null {
  if (text === '') return undefined;
  const t = text.toLowerCase();
  return t === 'true' ? true : t === 'false' ? false : null;
}
