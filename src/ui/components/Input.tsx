// ink-text-input, made safe for pasted text: a chunk that carries a newline (typed ahead or pasted) submits
// instead of hiding a "\r" in the value; with `joinLines`, newlines become spaces (multi-line pastes).
import TextInput from 'ink-text-input';

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

export function splitSubmitted(value: string, joinLines: boolean): { value: string; submit: boolean } {
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
  return (
    <TextInput
      value={value}
      mask={mask}
      placeholder={placeholder}
      focus={focus}
      onSubmit={onSubmit}
      onChange={(next) => {
        const r = splitSubmitted(next, joinLines);
        onChange(r.value);
        if (r.submit) onSubmit?.(r.value);
      }}
    />
  );
}
