// Step 1: choose a saved profile or create one; duplicate, rename and delete them here too.
import { Box, Text } from 'ink';
import { Input } from '../components/Input.js';
import { describeTarget, type Profile } from '../../profiles/index.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useKeyClaim, useKeyHold } from '../keys/keyboard.js';
import { useSyncState } from '../hooks/useSyncState.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';

type Mode =
  | { kind: 'list' }
  | { kind: 'name'; purpose: 'new' | 'duplicate' | 'rename'; from?: string; value: string }
  | { kind: 'confirm-delete'; name: string };

const LIST_KEYS: Command[] = ['up', 'down', 'select', 'new', 'duplicate', 'rename', 'delete', 'quit'];
const NAME_KEYS: Command[] = ['back'];
const CONFIRM_KEYS: Command[] = ['yes', 'back'];

export function ProfileScreen() {
  const { state, actions, size } = useWizard();
  const [cursor, setCursor, getCursor] = useSyncState(0);
  const [mode, setModeNow, getMode] = useSyncState<Mode>({ kind: 'list' });
  const { claim } = useKeyClaim();
  // Opening, creating, copying, renaming and deleting finish later: the keys typed after them wait for their screen.
  const hold = useKeyHold();
  // The key that opens the name prompt (n, d, r, enter) is claimed, so the prompt does not take it as text.
  const setMode = (next: Mode | ((m: Mode) => Mode)) => {
    claim();
    setModeNow(next);
  };
  const profiles = state.profiles.status === 'done' ? state.profiles.value : [];
  const items = ['+ new profile', ...profiles.map((p) => p.name)];

  useKeys(
    LIST_KEYS,
    (c) => {
      if (getMode().kind !== 'list') return;
      const cursor = getCursor();
      const selected = cursor > 0 ? profiles[cursor - 1] : undefined;
      if (c === 'up') setCursor((i) => Math.max(0, i - 1));
      else if (c === 'down') setCursor((i) => Math.min(items.length - 1, i + 1));
      else if (c === 'new' || (c === 'select' && cursor === 0)) setMode({ kind: 'name', purpose: 'new', value: '' });
      else if (c === 'select' && selected) hold(actions.openProfile(selected.name));
      else if (c === 'duplicate' && selected)
        setMode({ kind: 'name', purpose: 'duplicate', from: selected.name, value: `${selected.name}-copy` });
      else if (c === 'rename' && selected) setMode({ kind: 'name', purpose: 'rename', from: selected.name, value: selected.name });
      else if (c === 'delete' && selected) setMode({ kind: 'confirm-delete', name: selected.name });
      else if (c === 'quit') void actions.quit();
    },
    { isActive: mode.kind === 'list' },
  );

  useKeys(NAME_KEYS, () => setMode({ kind: 'list' }), { isActive: mode.kind === 'name', textFocus: true });
  useKeys(
    CONFIRM_KEYS,
    (c) => {
      const mode = getMode();
      if (c === 'yes' && mode.kind === 'confirm-delete') {
        hold(actions.deleteProfile(mode.name));
        setCursor(0);
      }
      setMode({ kind: 'list' });
    },
    { isActive: mode.kind === 'confirm-delete' },
  );

  const submitName = (value: string) => {
    const mode = getMode();
    if (mode.kind !== 'name') return;
    const name = value.trim();
    if (!name) return;
    if (mode.purpose === 'new') hold(actions.createProfile(name));
    else if (mode.purpose === 'duplicate' && mode.from) hold(actions.duplicateProfile(mode.from, name));
    else if (mode.purpose === 'rename' && mode.from) hold(actions.renameProfile(mode.from, name));
    setMode({ kind: 'list' });
  };

  return (
    <Frame title="profile: choose or create" help={helpFor(mode)}>
      {state.profiles.status === 'running' ? <Text {...theme.muted}>reading profiles…</Text> : null}
      {state.profiles.status === 'failed' ? <Text {...theme.error}>{state.profiles.error}</Text> : null}
      <ProfileList items={items} profiles={profiles} cursor={cursor} rows={Math.max(3, size.rows - 9)} />
      {/* Always mounted, so a name typed right after `n` (before the prompt is drawn) is kept. */}
      <Box marginTop={1} display={mode.kind === 'name' ? 'flex' : 'none'}>
        <Text>{promptLabel(mode)}</Text>
        <Input
          value={mode.kind === 'name' ? mode.value : ''}
          focus={mode.kind === 'name'}
          focusNow={() => getMode().kind === 'name'}
          onChange={(value) => setModeNow((m) => (m.kind === 'name' ? { ...m, value } : m))}
          onSubmit={submitName}
        />
      </Box>
      {mode.kind === 'confirm-delete' ? <Text {...theme.warning}>Delete profile {mode.name} and its stored secrets? (y/esc)</Text> : null}
    </Frame>
  );
}

/** The profiles, a window of them around the cursor. */
function ProfileList({ items, profiles, cursor, rows }: { items: string[]; profiles: Profile[]; cursor: number; rows: number }) {
  const first = Math.max(0, Math.min(cursor - Math.floor(rows / 2), items.length - rows));
  const listRows = rows;
  return (
    <>
      {items.slice(first, first + listRows).map((item, i) => {
        const index = first + i;
        const p = index > 0 ? profiles[index - 1] : undefined;
        const on = index === cursor;
        return (
          <Text key={item} {...(on ? theme.selected : {})} wrap="wrap">
            {on ? theme.symbols.pointer : ' '} {item.padEnd(20)}
            {p ? (
              <Text {...theme.muted}>
                {' '}
                {describeTarget(p)} · {p.sources.length} file(s)
              </Text>
            ) : null}
          </Text>
        );
      })}
    </>
  );
}

function helpFor(mode: Mode): string {
  if (mode.kind === 'list') return helpLine(LIST_KEYS, { select: 'open' });
  if (mode.kind === 'name') return `enter ok · ${helpLine(NAME_KEYS, { back: 'cancel' })}`;
  return helpLine(CONFIRM_KEYS, { yes: 'delete it', back: 'keep it' });
}

function promptLabel(mode: Mode): string {
  if (mode.kind !== 'name') return '';
  if (mode.purpose === 'new') return 'New profile name: ';
  if (mode.purpose === 'duplicate') return `Copy ${mode.from} as: `;
  return `Rename ${mode.from} to: `;
}
