// A burst of keys, as one read delivers it (tmux send-keys of a string, a paste, a fast typist), split into the
// keystrokes it is made of, so each can be applied to the state the one before it produced. Ink already cuts
// escape sequences (arrows, page keys) out of a read; what is left as one string is plain text with returns,
// tabs, backspaces and control keys in it, and here each of those becomes its own keystroke.

const ESC = '\u001b';

/** The keystrokes of one Ink input event, in order. A line feed (and a CR LF pair) is an Enter. */
export function splitKeystrokes(data: string): string[] {
  // An escape sequence (an arrow, a page key) is one keystroke already. Escape and the key after it, read
  // together, come as one "alt+key" event: the wizard has no alt keys, so that is escape, then the key.
  if (data.startsWith(ESC)) {
    const rest = [...data.slice(1)];
    if (rest.length === 1 && rest[0] === ESC) return [ESC, ESC];
    if (rest.length === 1 && rest[0] !== '[' && rest[0] !== 'O') return [ESC, ...splitKeystrokes(rest[0]!)];
    // Escape then an arrow comes as "alt+arrow" (two escapes): escape, then the arrow.
    if (rest.length > 2 && rest[0] === ESC && (rest[1] === '[' || rest[1] === 'O')) return [ESC, data.slice(1)];
    return [data];
  }
  const out: string[] = [];
  const chars = [...data];
  for (let i = 0; i < chars.length; i += 1) {
    const ch = chars[i]!;
    if (ch === '\r' && chars[i + 1] === '\n') {
      out.push('\r');
      i += 1;
    } else if (ch === '\n') out.push('\r');
    else out.push(ch);
  }
  return out;
}
