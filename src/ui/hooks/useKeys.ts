// Route key presses through the key map to a screen's handler. The listener reads the handler of the latest
// render (a ref set while rendering), not the one of the render its effect ran after: a key read between a
// commit and React's passive effects (a screen just redrawn as "preflight passed", then `c`) sees the new state.
import { useInput } from 'ink';
import { useCallback, useRef } from 'react';
import type { Command } from '../keymap.js';
import { commandFor } from '../keymap.js';

export function useKeys(
  commands: readonly Command[],
  onCommand: (command: Command) => void,
  /** `textFocus`: a text field has the focus, so letters are text, not commands; a function is asked at each key. */
  options: { textFocus?: boolean | (() => boolean); isActive?: boolean } = {},
): void {
  const latest = useRef({ commands, onCommand, textFocus: options.textFocus ?? false });
  latest.current = { commands, onCommand, textFocus: options.textFocus ?? false };
  const listener = useCallback((input: string, key: Parameters<Parameters<typeof useInput>[0]>[1]) => {
    const { commands: now, onCommand: handle, textFocus } = latest.current;
    const command = commandFor(input, key, now, typeof textFocus === 'function' ? textFocus() : textFocus);
    if (command) handle(command);
  }, []);
  useInput(listener, { isActive: options.isActive ?? true });
}
