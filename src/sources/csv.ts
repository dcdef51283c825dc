// CSV records (RFC 4180 quoting: `"a, b"`, `""` for a quote, line breaks inside quotes) from text lines, and one
// record to its fields. A quoted field may span lines, as every vendor's exporter writes a value with a line
// break; the record keeps the number of the line it starts on. A line break inside quotes reads as `\n`.
import { UserError } from '../errors.js';
import { lineTooLong, MAX_LINE_BYTES, type LineOptions, type TextLine } from './lines.js';

export type CsvFields = { ok: true; fields: string[] } | { ok: false; reason: string; fields: string[] };

/**
 * One record's fields. When the record cannot be read, `fields` holds those read before the fault, so a reader can
 * still name the user the row belongs to (its id column usually comes first).
 */
export function parseCsvLine(line: string): CsvFields {
  const fields: string[] = [];
  let i = 0;
  const n = line.length;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return { ok: false, reason: 'a quoted field is not closed (the file may be cut short)', fields };
        value += line.slice(i, q);
        if (line[q + 1] === '"') {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
      fields.push(value);
      if (i >= n) return { ok: true, fields };
      if (line[i] !== ',') return { ok: false, reason: `unexpected text after a quoted field at column ${i + 1}`, fields };
      i++;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? n : comma;
      fields.push(line.slice(i, end).trim());
      if (comma < 0) return { ok: true, fields };
      i = comma + 1;
    }
  }
}

/**
 * Whether `text` ends inside a quoted field, read as parseCsvLine reads it (a quote opens a field only right at
 * its start; elsewhere it is a character), starting inside one when `inQuotes`. Jumps from quote to quote.
 */
export function endsInsideQuotes(text: string, inQuotes: boolean): boolean {
  let i = 0;
  for (;;) {
    if (inQuotes) {
      // Find the closing quote: `""` is an escaped quote and stays inside.
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return true;
        if (text.charCodeAt(q + 1) === 0x22) {
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      inQuotes = false;
    }
    const q = text.indexOf('"', i);
    if (q < 0) return false;
    // A quote opens a quoted field only at the start of the record or right after a comma.
    if (q === 0 || text.charCodeAt(q - 1) === 0x2c) inQuotes = true;
    i = q + 1;
  }
}

export interface CsvRecordOptions extends LineOptions {
  /** Lines skipped outside records: blank ones always, `#` comments when asked (Clerk's samples carry one). */
  comments?: boolean;
}

/**
 * Join lines into CSV records: a line that ends inside a quoted field continues on the next one. Blank lines
 * (and `#` comments when asked) between records are skipped. A record longer than the line cap stops the read
 * with an error; at the end of the input an unclosed record is given as it is (its parse says what is wrong).
 */
export async function* csvRecordBatches(lines: AsyncIterable<TextLine[]>, options: CsvRecordOptions = {}): AsyncGenerator<TextLine[]> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  let open: { parts: string[]; line: number; length: number } | undefined;
  for await (const batch of lines) {
    const out: TextLine[] = [];
    for (const l of batch) {
      if (open) {
        open.parts.push(l.text);
        open.length += l.text.length + 1;
        if (open.length > max) throw lineTooLong(options.name, open.line, max, 'CSV row (a quoted field spanning lines)');
        // The previous line ended inside quotes, so this one starts inside them.
        if (!endsInsideQuotes(l.text, true)) {
          out.push(checked({ text: open.parts.join('\n'), line: open.line }, options.name));
          open = undefined;
        }
        continue;
      }
      const start = l.text.trimStart();
      if (start === '' || (options.comments && start.startsWith('#'))) continue;
      if (l.text.indexOf('"') < 0 || !endsInsideQuotes(l.text, false)) out.push(checked(l, options.name));
      else open = { parts: [l.text], line: l.line, length: l.text.length };
    }
    if (out.length > 0) yield out;
  }
  if (open) yield [checked({ text: open.parts.join('\n'), line: open.line }, options.name)];
}

/**
 * A record of a file whose lines end with LF (or CRLF) that holds a lone CR outside quotes: the file mixes line
 * endings (rows glued by CR, e.g. a CR-only table appended to an LF header), so several rows, of several users,
 * would read as one row with too many columns and only the first user would be told. The read stops instead,
 * naming the line and no content (a CR inside a quoted value is the value's own). CR-only files never get here:
 * lines.ts splits them on every CR.
 */
function checked(record: TextLine, name: string | undefined): TextLine {
  if (record.text.indexOf('\r') >= 0 && crOutsideQuotes(record.text))
    throw new UserError(
      `${name ?? 'the input'}:${record.line}: this line holds a lone carriage return (CR) outside quotes while the file's lines end with LF: the file mixes line endings, so its rows cannot be told apart safely; convert it to one style (for example with dos2unix, or mac2unix for CR-only parts) and run again`,
    );
  return record;
}

/** Whether `text` (one record) has a CR outside quoted fields, read as parseCsvLine reads quotes. */
function crOutsideQuotes(text: string): boolean {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === 0x22) {
        if (text.charCodeAt(i + 1) === 0x22) i++;
        else quoted = false;
      }
    } else if (c === 0x0d) return true;
    else if (c === 0x22 && (i === 0 || text.charCodeAt(i - 1) === 0x2c)) quoted = true;
  }
  return false;
}
