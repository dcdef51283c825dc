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
  let carry: Buffer | null = null;
  let line = 0;
  for await (const chunk of chunks) {
    const buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = null;
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
    if (start < buf.length) carry = Buffer.from(buf.subarray(start));
    if (batch.length > 0) yield batch;
  }
  if (carry && carry.length > 0) {
    line++;
    const end = carry[carry.length - 1] === 0x0d ? carry.length - 1 : carry.length;
    yield [{ text: carry.toString('utf8', 0, end), line }];
  }
}
