// The one key map: every screen asks it which command a key press means, and the footers are drawn from it.
import type { Key } from 'ink';

export type Command =
  | 'back'
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'left'
  | 'right'
  | 'select'
  | 'complete'
  | 'continue'
  | 'new'
  | 'duplicate'
  | 'rename'
  | 'delete'
  | 'filter'
  | 'spotCheck'
  | 'pause'
  | 'stop'
  | 'quit'
  | 'run'
  | 'dryRun'
  | 'verify'
  | 'signIn'
  | 'save'
  | 'yes'
  | 'undo'
  | 'sync'
  | 'removeMissing'
  | 'allowPartial'
  | 'search';

interface Binding {
  label: string;
  help: string;
  /** Letter bindings are ignored while a text field has the focus. */
  letter?: boolean;
  match(input: string, key: Key): boolean;
}

const letter = (ch: string, label: string, help: string): Binding => ({
  label,
  help,
  letter: true,
  match: (input, key) => !key.ctrl && !key.meta && input === ch,
});

export const KEYMAP: Record<Command, Binding> = {
  back: { label: 'esc', help: 'back', match: (_i, k) => k.escape },
  up: { label: '↑', help: 'up', match: (_i, k) => k.upArrow },
  down: { label: '↓', help: 'down', match: (_i, k) => k.downArrow },
  pageUp: { label: 'pgup', help: 'page up', match: (_i, k) => k.pageUp },
  pageDown: { label: 'pgdn', help: 'page down', match: (_i, k) => k.pageDown },
  left: { label: '←', help: 'previous', match: (_i, k) => k.leftArrow },
  right: { label: '→', help: 'next', match: (_i, k) => k.rightArrow },
  select: { label: 'enter', help: 'choose', match: (_i, k) => k.return },
  complete: { label: 'tab', help: 'complete path', match: (_i, k) => k.tab && !k.shift },
  continue: letter('c', 'c', 'continue'),
  new: letter('n', 'n', 'new'),
  duplicate: letter('d', 'd', 'duplicate'),
  rename: letter('r', 'r', 'rename'),
  delete: letter('x', 'x', 'delete'),
  filter: letter('f', 'f', 'filter'),
  spotCheck: letter('s', 's', 'spot-check'),
  pause: letter('p', 'p', 'pause/resume'),
  stop: letter('q', 'q', 'stop safely'),
  quit: letter('q', 'q', 'quit'),
  run: letter('r', 'r', 'run'),
  dryRun: letter('d', 'd', 'dry run'),
  verify: letter('v', 'v', 'verify'),
  signIn: letter('i', 'i', 'sign in'),
  save: letter('s', 's', 'save now'),
  yes: letter('y', 'y', 'yes'),
  undo: letter('u', 'u', 'undo the run'),
  sync: letter('s', 's', 'sync instead'),
  removeMissing: letter('m', 'm', 'remove missing'),
  allowPartial: letter('a', 'a', 'go on without them'),
  search: letter('/', '/', 'search'),
};

/** The first of `commands` bound to this key press (letters only when no text field has the focus). */
export function commandFor(input: string, key: Key, commands: readonly Command[], textFocus = false): Command | undefined {
  return commands.find((c) => {
    const b = KEYMAP[c];
    return !(textFocus && b.letter) && b.match(input, key);
  });
}

/** Footer text, e.g. `↑/↓ move · enter choose · esc back`, with custom help per command where given. */
export function helpLine(commands: readonly Command[], overrides: Partial<Record<Command, string>> = {}): string {
  const parts: string[] = [];
  const has = (c: Command) => commands.includes(c);
  if (has('up') && has('down')) parts.push(`↑/↓ ${overrides.up ?? 'move'}`);
  for (const c of commands) {
    if ((c === 'up' || c === 'down') && has('up') && has('down')) continue;
    parts.push(`${KEYMAP[c].label} ${overrides[c] ?? KEYMAP[c].help}`);
  }
  return parts.join(' · ');
}
