// Route keystrokes through the key map to a screen's handler. The handler called is the one of the latest
// render, and whether it is active is asked when the keystroke arrives (see keys/keyboard.tsx, the one input path).
import type { Command } from '../keymap.js';
import { commandFor } from '../keymap.js';
import { useKeystroke } from '../keys/keyboard.js';

export function useKeys(
  commands: readonly Command[],
  onCommand: (command: Command) => void,
  /** `textFocus`: a text field has the focus, so letters are text, not commands; a function is asked at each key. */
  options: { textFocus?: boolean | (() => boolean); isActive?: boolean | (() => boolean) } = {},
): void {
  const { textFocus = false } = options;
  useKeystroke(
    (input, key) => {
      const command = commandFor(input, key, commands, typeof textFocus === 'function' ? textFocus() : textFocus);
      if (!command) return false;
      onCommand(command);
      return true;
    },
    { isActive: options.isActive ?? true },
  );
}
