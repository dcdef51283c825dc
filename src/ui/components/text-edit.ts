// Line editing for the wizard's text fields, as a pure function of (text, cursor) and one input event, so
// the field can apply keys that arrive before React re-renders one after the other.
import type { Key } from 'ink';

export interface TextState {
  value: string;
  /** 0..value.length: where the next character goes. */
  cursor: number;
}

export interface EditResult {
  state: TextState;
  /** Enter was pressed, or a pasted block ended with one (see `joinLines`). */
  submit: boolean;
}

/** More `{` than `}` so far: a pasted block is still coming. */
function unclosed(value: string): boolean {
  return (value.match(/\{/g) ?? []).length > (value.match(/\}/g) ?? []).length;
}

/** Keys that belong to the screen (moving between fields, leaving), never to the text. */
export function isFieldKey(input: string, key: Key): boolean {
  return key.upArrow || key.downArrow || key.tab || key.escape || key.pageUp || key.pageDown || (key.ctrl && input === 'c');
}

/**
 * Apply one input event. Typed or pasted text may carry several characters, DEL characters (backspaces read
 * in one chunk) and newlines: without `joinLines` a newline submits; with it (multi-line pastes such as the
 * console's `hash_config { ... }` block) newlines become one space each run and the text is submitted once
 * its braces are balanced. Other control characters are dropped, so none hides in a value.
 */
export function editText(state: TextState, input: string, key: Key, joinLines = false): EditResult {
  let { value, cursor } = state;
  cursor = Math.max(0, Math.min(cursor, value.length));
  if (key.return && (input === '\r' || input === '\n' || input === '')) {
    // A paste arrives a keystroke at a time: inside an open brace an Enter is a line of the block, one space.
    if (joinLines && unclosed(value)) {
      if (value[cursor - 1] === ' ') return { state: { value, cursor }, submit: false };
      return { state: { value: value.slice(0, cursor) + ' ' + value.slice(cursor), cursor: cursor + 1 }, submit: false };
    }
    return { state: { value, cursor }, submit: true };
  }
  if (key.leftArrow) return { state: { value, cursor: Math.max(0, cursor - 1) }, submit: false };
  if (key.rightArrow) return { state: { value, cursor: Math.min(value.length, cursor + 1) }, submit: false };
  if (key.home || (key.ctrl && input === 'a')) return { state: { value, cursor: 0 }, submit: false };
  if (key.end || (key.ctrl && input === 'e')) return { state: { value, cursor: value.length }, submit: false };
  if (key.ctrl && input === 'u') return { state: { value: value.slice(cursor), cursor: 0 }, submit: false };
  if ((key.backspace || key.delete) && input.length <= 1) {
    return {
      state: cursor > 0 ? { value: value.slice(0, cursor - 1) + value.slice(cursor), cursor: cursor - 1 } : { value, cursor },
      submit: false,
    };
  }
  if (key.ctrl || key.meta) return { state: { value, cursor }, submit: false };

  let submit = false;
  let sawNewline = false;
  let lastWasNewline = false;
  for (const ch of input) {
    if (ch === '\u007f' || ch === '\b') {
      if (cursor > 0) {
        value = value.slice(0, cursor - 1) + value.slice(cursor);
        cursor -= 1;
      }
      lastWasNewline = false;
    } else if (ch === '\r' || ch === '\n') {
      sawNewline = true;
      if (!joinLines) submit = true;
      else if (!lastWasNewline) {
        value = value.slice(0, cursor) + ' ' + value.slice(cursor);
        cursor += 1;
      }
      lastWasNewline = true;
    } else if (ch >= ' ') {
      value = value.slice(0, cursor) + ch + value.slice(cursor);
      cursor += ch.length;
      lastWasNewline = false;
    }
  }
  if (joinLines && sawNewline) {
    const open = (value.match(/\{/g) ?? []).length;
    const close = (value.match(/\}/g) ?? []).length;
    submit = open > 0 && open === close;
  }
  return { state: { value, cursor }, submit };
}
