// Split a byte stream into text lines, keeping 1-based line numbers for messages. Lines end with LF or CRLF; a
// file whose first line break is a lone CR (classic Mac) is split on CR, CRLF and LF alike, so it is read line by
// line instead of as one line. A line longer than MAX_LINE_BYTES stops the read with an error naming it: memory
// stays bounded however the file is damaged (a missing line break, a binary blob, a quote never closed).
import { UserError } from '../errors.js';

export interface TextLine {
  text: string;
  line: number;
}

/**
 * No user's line comes near this: the core takes at most 1 MiB per request, so a record whose line is over 4 MiB
 * could not be imported anyway. Reading it whole would take about twenty times its size in memory.
 */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface LineOptions {
  /** The file's name, for the message of a line over the cap. */
  name?: string;
  /** Longest line read (bytes, without its line break); MAX_LINE_BYTES by default. */
  maxLineBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;

export async function* splitLines(chunks: AsyncIterable<Buffer>, options: LineOptions = {}): AsyncGenerator<TextLine> {
  for await (const batch of splitLineBatches(chunks, options)) yield* batch;
}

/** The message of a line (or CSV row) over the cap; one line, no content of the file. */
export function lineTooLong(name: string | undefined, line: number, max: number, what = 'line'): UserError {
  const mib = Math.round((max / (1024 * 1024)) * 10) / 10;
  return new UserError(
    `${name ?? 'the input'}:${line}: the ${what} starting at line ${line} is longer than ${mib} MiB, far longer than any user record (the core takes at most 1 MiB per request): the file is damaged, has no line breaks, or a quote is never closed; fix or export it again`,
  );
}

/** The complete lines of each chunk as one array (fewer async steps for large files). */
export async function* splitLineBatches(chunks: AsyncIterable<Buffer>, options: LineOptions = {}): AsyncGenerator<TextLine[]> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  // The unfinished line, as parts: joined only once its newline arrives (no quadratic copying of long lines).
  let carry: Buffer[] = [];
  let carried = 0;
  let line = 0;
  // Undecided until the first line break: LF (and CRLF) files, or CR-only ones.
  let crOnly: boolean | undefined;
  let pendingCr = false;
  for await (const chunk of chunks) {
    if (crOnly === undefined) {
      const decided = lineBreakStyle(chunk, pendingCr);
      pendingCr = decided === 'pending';
      if (decided === 'cr' || decided === 'lf') crOnly = decided === 'cr';
    }
    if (crOnly) {
      const batch = splitUniversal(carry, chunk, line, max, options.name);
      carry = batch.carry;
      carried = batch.carried;
      line = batch.line;
      if (batch.lines.length > 0) yield batch.lines;
      continue;
    }
    let buf: Buffer = chunk;
    const first = chunk.indexOf(LF);
    if (carry.length > 0) {
      if (first < 0) {
        carry.push(chunk);
        carried += chunk.length;
        if (carried > max + 1) throw lineTooLong(options.name, line + 1, max);
        continue;
      }
      if (carried + first > max + 1) throw lineTooLong(options.name, line + 1, max);
      buf = Buffer.concat([...carry, chunk]);
      carry = [];
      carried = 0;
    }
    const batch: TextLine[] = [];
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(LF, start);
      if (nl < 0) break;
      line++;
      const end = nl > start && buf[nl - 1] === CR ? nl - 1 : nl;
      if (end - start > max) throw lineTooLong(options.name, line, max);
      batch.push({ text: buf.toString('utf8', start, end), line });
      start = nl + 1;
    }
    if (start < buf.length) {
      carry.push(Buffer.from(buf.subarray(start)));
      carried = buf.length - start;
      if (carried > max + 1) throw lineTooLong(options.name, line + 1, max);
    }
    if (batch.length > 0) yield batch;
  }
  if (carry.length > 0) {
    const rest = Buffer.concat(carry);
    line++;
    const end = rest[rest.length - 1] === CR ? rest.length - 1 : rest.length;
    if (end > max) throw lineTooLong(options.name, line, max);
    if (end > 0 || !crOnly) yield [{ text: rest.toString('utf8', 0, end), line }];
  }
}

/** The style of the first line break in `chunk`: LF (or CRLF), a lone CR, none yet, or a CR at the very end. */
function lineBreakStyle(chunk: Buffer, pendingCr: boolean): 'lf' | 'cr' | 'none' | 'pending' {
  if (pendingCr && chunk.length > 0) return chunk[0] === LF ? 'lf' : 'cr';
  const lf = chunk.indexOf(LF);
  const cr = chunk.indexOf(CR);
  if (cr < 0 || (lf >= 0 && lf < cr)) return lf < 0 ? 'none' : 'lf';
  if (cr === chunk.length - 1) return 'pending';
  return chunk[cr + 1] === LF ? 'lf' : 'cr';
}

/** CR-only files (rare): every CR, CRLF or LF ends a line. */
function splitUniversal(
  carry: Buffer[],
  chunk: Buffer,
  line: number,
  max: number,
  name: string | undefined,
): { lines: TextLine[]; carry: Buffer[]; carried: number; line: number } {
  const buf = carry.length > 0 ? Buffer.concat([...carry, chunk]) : chunk;
  const lines: TextLine[] = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b !== CR && b !== LF) continue;
    // A CR at the end of the chunk may be the first half of a CRLF: decided with the next chunk.
    if (b === CR && i === buf.length - 1) break;
    line++;
    if (i - start > max) throw lineTooLong(name, line, max);
    lines.push({ text: buf.toString('utf8', start, i), line });
    if (b === CR && buf[i + 1] === LF) i++;
    start = i + 1;
  }
  const rest = start < buf.length ? [Buffer.from(buf.subarray(start))] : [];
  const carried = buf.length - start;
  if (carried > max + 1) throw lineTooLong(name, line + 1, max);
  return { lines, carry: rest, carried, line };
}
