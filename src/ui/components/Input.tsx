// ink-text-input, made safe for pasted text: a chunk that carries a newline (typed ahead or pasted) submits
// instead of hiding a "\r" in the value; with `joinLines`, newlines become spaces (multi-line pastes).
import TextInput from 'ink-text-input';
import { useRef } from 'react';

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

/**
 * Several backspaces read in one chunk reach the text input as one string of DEL characters; apply them
 * (each removes the character before it) and drop any other control character, so none hides in a value.
 */
export function applyControlChars(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/.test(value)) return value;
  const out: string[] = [];
  for (const ch of value) {
    if (ch === '\u007f' || ch === '\b') out.pop();
    else if (ch === '\r' || ch === '\n' || ch >= ' ') out.push(ch);
  }
  return out.join('');
}

export function splitSubmitted(raw: string, joinLines: boolean): { value: string; submit: boolean } {
  const value = applyControlChars(raw);
  if (!/[\r\n]/.test(value)) return { value, submit: false };
  if (joinLines) {
    const joined = value.replace(/[\r\n]+/g, ' ');
    const open = (joined.match(/\{/g) ?? []).length;
    const close = (joined.match(/\}/g) ?? []).length;
    return { value: joined, submit: open > 0 && open === close };
  }
  return { value: value.replace(/[\r\n]+/g, ''), submit: true };
}

export function Input({ value, onChange, onSubmit, mask, placeholder, focus, joinLines = false }: InputProps) {
  // Enter typed right after text (before React re-rendered) must submit that text, not the previous value.
  const latest = useRef(value);
  latest.current = value;
  return (
    <TextInput
      value={value}
      mask={mask}
      placeholder={placeholder}
      focus={focus}
      onSubmit={() => onSubmit?.(latest.current)}
      onChange={(next) => {
        const r = splitSubmitted(next, joinLines);
        latest.current = r.value;
        onChange(r.value);
        if (r.submit) onSubmit?.(r.value);
      }}
    />
  );
}
