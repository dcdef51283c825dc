// Split a byte stream into text lines (LF or CRLF), keeping 1-based line numbers for messages.
export interface TextLine {
  text: string;
  line: number;
}

export async function* splitLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<TextLine> {
  for await (const batch of splitLineBatches(chunks)) yield* batch;
}

/** The complete lines of each chunk as one array (fewer async steps for large files). */
export async function* splitLineBatches(chunks: AsyncIterable<Buffer>): AsyncGenerator<TextLine[]> {
  // The unfinished line, as parts: joined only once its newline arrives (no quadratic copying of long lines).
  let carry: Buffer[] = [];
  let line = 0;
  for await (const chunk of chunks) {
    let buf: Buffer = chunk;
    const first = chunk.indexOf(0x0a);
    if (carry.length > 0) {
      if (first < 0) {
        carry.push(chunk);
        continue;
      }
      buf = Buffer.concat([...carry, chunk]);
      carry = [];
    }
    const batch: TextLine[] = [];
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) break;
      line++;
      const end = nl > start && buf[nl - 1] === 0x0d ? nl - 1 : nl;
      batch.push({ text: buf.toString('utf8', start, end), line });
      start = nl + 1;
    }
    if (start < buf.length) carry.push(Buffer.from(buf.subarray(start)));
    if (batch.length > 0) yield batch;
  }
  if (carry.length > 0) {
    const rest = Buffer.concat(carry);
    line++;
    const end = rest[rest.length - 1] === 0x0d ? rest.length - 1 : rest.length;
    yield [{ text: rest.toString('utf8', 0, end), line }];
  }
}
