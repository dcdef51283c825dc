// One labelled text field: a pointer when focused, the input (masked for secrets), and a status after it.
import { Box, Text } from 'ink';
import { Input } from './Input.js';
import { theme } from '../theme.js';

export interface FieldProps {
  label: string;
  value: string;
  focus: boolean;
  /** Whether this field has the focus now, asked at each key (see Input). */
  focusNow?: () => boolean;
  onChange(value: string): void;
  onSubmit?(value: string): void;
  secret?: boolean;
  placeholder?: string;
  status?: { ok: boolean; text: string };
  labelWidth?: number;
  joinLines?: boolean;
}

export function Field({
  label,
  value,
  focus,
  focusNow,
  onChange,
  onSubmit,
  secret,
  placeholder,
  status,
  labelWidth = 14,
  joinLines,
}: FieldProps) {
  return (
    <Box>
      {/* The label and the status keep their width; a long value wraps in between. */}
      <Box flexShrink={0}>
        <Text {...(focus ? theme.selected : {})}>
          {focus ? theme.symbols.pointer : ' '} {label.padEnd(labelWidth)}
        </Text>
      </Box>
      <Box flexGrow={1} flexShrink={1} overflow="hidden">
        {focus || focusNow ? (
          <Input
            focus={focus}
            focusNow={focusNow}
            value={value}
            onChange={onChange}
            onSubmit={onSubmit}
            mask={secret ? theme.mask : undefined}
            placeholder={placeholder}
            joinLines={joinLines}
          />
        ) : (
          <Text wrap="wrap" {...(value ? {} : theme.muted)}>
            {value ? (secret ? theme.mask.repeat(Math.min(value.length, 24)) : value) : (placeholder ?? '')}
          </Text>
        )}
      </Box>
      {status ? (
        <Box flexShrink={0}>
          <Text {...(status.ok ? theme.ok : theme.error)}>
            {' '}
            {status.ok ? theme.symbols.ok : theme.symbols.fail} {status.text}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}
