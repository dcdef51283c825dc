// A path field with Tab completion: the completion list comes from the service (async readdir), never sync I/O.
import { Box, Text } from 'ink';
import { Input } from './Input.js';
import { useRef, useState } from 'react';
import { useKeys } from '../hooks/useKeys.js';
import { theme } from '../theme.js';

export interface PathInputProps {
  label: string;
  value: string;
  focus: boolean;
  /** Whether this field has the focus now, asked at each key (see Input). */
  focusNow?: () => boolean;
  onChange(value: string): void;
  onSubmit(value: string): void;
  complete(partial: string): Promise<string[]>;
  labelWidth?: number;
}

/** The longest prefix shared by all candidates. */
export function commonPrefix(items: string[]): string {
  if (items.length === 0) return '';
  let prefix = items[0]!;
  for (const item of items) while (!item.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

export function PathInput({ label, value, focus, focusNow, onChange, onSubmit, complete, labelWidth = 14 }: PathInputProps) {
  const [choices, setChoices] = useState<string[]>([]);
  // Tab can arrive right after typed text, before a re-render: complete what was typed, not what was drawn.
  const typed = useRef(value);
  typed.current = value;
  useKeys(
    ['complete'],
    () => {
      if (focusNow && !focusNow()) return;
      const partial = typed.current;
      void complete(partial).then((found) => {
        const next = commonPrefix(found);
        // The field puts its cursor at the end of a value its parent changed.
        if (next.length > partial.length && typed.current === partial) onChange(next);
        setChoices(found.length > 1 ? found : []);
      });
    },
    { isActive: focus || focusNow !== undefined, textFocus: true },
  );
  return (
    <Box flexDirection="column">
      <Box>
        <Text {...(focus ? theme.selected : {})}>
          {focus ? theme.symbols.pointer : ' '} {label.padEnd(labelWidth)}
        </Text>
        {focus || focusNow ? (
          <Input
            focus={focus}
            focusNow={focusNow}
            value={value}
            onChange={(v) => {
              typed.current = v;
              setChoices([]);
              onChange(v);
            }}
            onSubmit={onSubmit}
            placeholder="type a path, tab completes"
          />
        ) : (
          <Text {...theme.muted}>{value || 'type a path, tab completes'}</Text>
        )}
      </Box>
      {focus && choices.length > 0 ? (
        <Text {...theme.muted} wrap="wrap">
          {'  '}
          {choices
            .slice(0, 6)
            .map((c) => c.split('/').filter(Boolean).pop() + (c.endsWith('/') ? '/' : ''))
            .join('  ')}
          {choices.length > 6 ? `  … ${choices.length - 6} more` : ''}
        </Text>
      ) : null}
    </Box>
  );
}
