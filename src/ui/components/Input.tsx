// The wizard's one-line text field. Its text and cursor live in a ref that every key updates at once, so keys
// read before React re-renders (a held backspace, fast typing, a paste split across reads) build on each other.
// Which field a key belongs to is asked at the key, not at the last render: a screen moves its focus in a ref the
// moment an arrow is read (useSyncState), and every field of the screen listens and takes a key only when
// `focusNow()` says it is the focused one. So text typed right after an arrow, in the same read or the next one,
// lands in the field the arrow moved to, even before React has drawn the move; the key that made a move is
// claimed by it (keys/keyboard.tsx) and taken by no field.
import { Text, type Key } from 'ink';
import { useReducer, useRef } from 'react';
import { useKeyClaim, useKeystroke } from '../keys/keyboard.js';
import { editText, isFieldKey, type TextState } from './text-edit.js';

export interface InputProps {
  value: string;
  onChange(value: string): void;
  onSubmit?(value: string): void;
  mask?: string;
  placeholder?: string;
  /** Drawn as focused (cursor shown). */
  focus?: boolean;
  /** Whether this field has the focus now, read at each key (the screen's focus ref); default: `focus`. */
  focusNow?: () => boolean;
  /** Multi-line pastes: newlines become spaces, and the text is submitted once its braces close. */
  joinLines?: boolean;
}

export function Input({ value, onChange, onSubmit, mask, placeholder = '', focus = true, focusNow, joinLines = false }: InputProps) {
  const edit = useRef<TextState>({ value, cursor: value.length });
  const emitted = useRef(value);
  if (value !== emitted.current) {
    // The parent changed the text itself (a completion, a reset): take it, with the cursor at its end.
    emitted.current = value;
    edit.current = { value, cursor: value.length };
  }
  const handlers = useRef({ onChange, onSubmit, focusNow });
  handlers.current = { onChange, onSubmit, focusNow };
  // A cursor move changes nothing the parent holds, so the field asks for its own render.
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const { claimed } = useKeyClaim();

  useKeystroke(
    (input: string, key: Key) => {
      if (isFieldKey(input, key) || claimed()) return;
      const now = handlers.current.focusNow;
      if (now && !now()) return;
      const { state, submit } = editText(edit.current, input, key, joinLines);
      edit.current = state;
      if (state.value !== emitted.current) {
        emitted.current = state.value;
        handlers.current.onChange(state.value);
      } else redraw();
      if (submit) handlers.current.onSubmit?.(state.value);
      return submit;
    },
    { isActive: () => (focusNow ? focusNow() : focus), layer: 'text' },
  );

  const { value: text, cursor } = edit.current;
  const shown = mask ? mask.repeat(text.length) : text;
  // Unfocused, a masked value shows at most 24 marks: its length is not the screen's business.
  if (!focus)
    return <Text>{shown === '' ? <Text dimColor>{placeholder}</Text> : mask ? mask.repeat(Math.min(text.length, 24)) : shown}</Text>;
  if (shown === '') {
    return (
      <Text>
        <Text inverse>{placeholder.slice(0, 1) || ' '}</Text>
        <Text dimColor>{placeholder.slice(1)}</Text>
      </Text>
    );
  }
  // Masks are one character per character of the text, so the cursor index carries over.
  return (
    <Text>
      {shown.slice(0, cursor)}
      <Text inverse>{shown.slice(cursor, cursor + 1) || ' '}</Text>
      {shown.slice(cursor + 1)}
    </Text>
  );
}
