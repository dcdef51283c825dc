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
