// The wizard's one-line text field. Its text and cursor live in a ref that every key updates at once, so keys
// read before React re-renders (a held backspace, fast typing, a paste split across reads) build on each
// other; ink-text-input computes each key from the last rendered value and loses them.
// Keys read in the same chunk as an arrow that moved the focus (`↓abc` in one read) reach the field that had the
// focus, whose listener React removes only later (passive effects), or to no field at all: the relay
// (focus-handover.ts) gives them to the field that has the focus once the move is committed, so they are neither
// lost nor typed into the wrong field.
import { Text, useInput, useStdin, type Key } from 'ink';
import { useLayoutEffect, useReducer, useRef } from 'react';
import { editText, isFieldKey, type TextState } from './text-edit.js';
import { focusedInput, handedOver } from './focus-handover.js';

export interface InputProps {
  value: string;
  onChange(value: string): void;
  onSubmit?(value: string): void;
  mask?: string;
  placeholder?: string;
  focus?: boolean;
  /** Multi-line pastes: newlines become spaces, and the text is submitted once its braces close. */
  joinLines?: boolean;
}

export function Input({ value, onChange, onSubmit, mask, placeholder = '', focus = true, joinLines = false }: InputProps) {
  const edit = useRef<TextState>({ value, cursor: value.length });
  const emitted = useRef(value);
  if (value !== emitted.current) {
    // The parent changed the text itself (a completion, a reset): take it, with the cursor at its end.
    emitted.current = value;
    edit.current = { value, cursor: value.length };
  }
  const handlers = useRef({ onChange, onSubmit });
  handlers.current = { onChange, onSubmit };
  // A cursor move changes nothing the parent holds, so the field asks for its own render.
  const [, redraw] = useReducer((n: number) => n + 1, 0);

  const apply = (input: string, key: Key) => {
    const { state, submit } = editText(edit.current, input, key, joinLines);
    edit.current = state;
    if (state.value !== emitted.current) {
      emitted.current = state.value;
      handlers.current.onChange(state.value);
    } else redraw();
    if (submit) handlers.current.onSubmit?.(state.value);
  };
  const applyRef = useRef(apply);
  applyRef.current = apply;
  // The focused field as of the commit (a layout effect), not as of the key listeners (passive effects, later).
  const { internal_eventEmitter: events } = useStdin();
  useLayoutEffect(() => {
    if (!focus) return undefined;
    return focusedInput(events, (input, key) => applyRef.current(input, key));
  }, [focus, events]);

  useInput(
    (input, key) => {
      if (isFieldKey(input, key)) return;
      if (!handedOver(events)) apply(input, key);
    },
    { isActive: focus },
  );

  const { value: text, cursor } = edit.current;
  const shown = mask ? mask.repeat(text.length) : text;
  if (!focus) return <Text>{shown === '' ? <Text dimColor>{placeholder}</Text> : shown}</Text>;
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
