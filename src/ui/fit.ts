// How many terminal rows wrapped text takes, so a screen can show as many wrapped lines as fit instead of
// cutting each line (Ink overlaps lines when a frame outgrows its height).

/** Rows `text` takes when wrapped at `width` columns (each explicit line at least one). */
export function wrappedRows(text: string, width: number): number {
  const w = Math.max(1, width);
  return text.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil([...line].length / w)), 0);
}

/** The first lines of `lines` that fit in `rows` rows when wrapped at `width` columns. */
export function linesThatFit(lines: string[], rows: number, width: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (const line of lines) {
    const need = wrappedRows(line, width);
    if (used + need > rows) break;
    out.push(line);
    used += need;
  }
  return out;
}

/** Rows a one-line text takes when Ink wraps it at word boundaries (as the frame's key help is drawn). */
export function wordWrappedRows(text: string, width: number): number {
  const w = Math.max(1, width);
  let rows = 1;
  let used = 0;
  for (const word of text.split(' ')) {
    const len = [...word].length;
    const need = used === 0 ? len : used + 1 + len;
    if (need <= w) used = need;
    else {
      rows += used === 0 ? 0 : 1;
      rows += Math.max(0, Math.ceil(len / w) - 1);
      used = len % w || Math.min(len, w);
    }
  }
  return rows;
}

/**
 * The window of a scrolled list of wrapped lines: from `first` (clamped), as many as fit in `rows` (one row kept
 * for the "more" line when not all fit). With `keep`, the window moves down just enough for that line to be in it.
 */
export function scrollWindow(
  heights: number[],
  rows: number,
  first: number | undefined,
  keep?: number,
): { first: number; count: number; hidden: number } {
  const fits = (from: number, to: number, room: number) => heights.slice(from, to + 1).reduce((a, b) => a + b, 0) <= room;
  const total = heights.reduce((a, b) => a + b, 0);
  if (total <= rows) return { first: 0, count: heights.length, hidden: 0 };
  const room = Math.max(1, rows - 1);
  let start = Math.max(0, Math.min(first ?? 0, heights.length - 1));
  if (first === undefined && keep !== undefined) while (start < keep && !fits(start, keep, room)) start += 1;
  let count = 0;
  let used = 0;
  for (let i = start; i < heights.length && used + heights[i]! <= room; i += 1) {
    used += heights[i]!;
    count += 1;
  }
  return { first: start, count: Math.max(1, count), hidden: heights.length - start - Math.max(1, count) };
}

/** `text` word-wrapped to rows of at most `width` columns, its indentation kept (a word longer than a row is cut). */
export function wrapToRows(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const len = (x: string) => [...x].length;
  const rows: string[] = [];
  for (const paragraph of text.split('\n')) {
    let row = '';
    let first = true;
    for (const word of paragraph.split(' ')) {
      const piece = first ? word : ` ${word}`;
      first = false;
      if (len(row) + len(piece) <= w) {
        row += piece;
        continue;
      }
      if (row.trim() !== '') rows.push(row);
      let rest = word;
      while (len(rest) > w) {
        rows.push([...rest].slice(0, w).join(''));
        rest = [...rest].slice(w).join('');
      }
      row = rest;
    }
    rows.push(row);
  }
  return rows;
}
