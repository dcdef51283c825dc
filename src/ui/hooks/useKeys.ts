// Route key presses through the key map to a screen's handler.
import { useInput } from 'ink';
import type { Command } from '../keymap.js';
import { commandFor } from '../keymap.js';

export function useKeys(
  commands: readonly Command[],
  onCommand: (command: Command) => void,
  options: { textFocus?: boolean; isActive?: boolean } = {},
): void {
  useInput(
    (input, key) => {
      const command = commandFor(input, key, commands, options.textFocus ?? false);
      if (command) onCommand(command);
    },
    { isActive: options.isActive ?? true },
  );
}
