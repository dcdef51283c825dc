// Step 2: the api key, licence key, signer key and the sign-in secret (migrate at sign-in), checked as typed, always
// masked, and where each is kept (key-fields.ts: the sign-in secret in memory or in a variable, never in a file).
import { Box, Text } from 'ink';
import { useState } from 'react';
import type { Profile, SecretSource } from '../../profiles/index.js';
import { Field } from '../components/Field.js';
import { Frame } from '../components/Frame.js';
import { useWizard, type WizardContextValue } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useFocusRows } from '../hooks/useFocusRows.js';
import { helpLine, type Command } from '../keymap.js';
import type { KeyName } from '../state/types.js';
import { theme } from '../theme.js';
import {
  DEFAULT_ENV,
  envNameProblem,
  KEY_LABELS,
  KEY_NAMES,
  keyProblem,
  sourceOf,
  STORE_LABELS,
  storesOf,
  valueOf,
  withSource,
  type Store,
} from './key-fields.js';

type Row = { kind: 'value' | 'store' | 'env'; name: KeyName } | { kind: 'continue' };
const KEYS: Command[] = ['up', 'down', 'left', 'right', 'select', 'back'];
const HELP = `↑/↓ move · ←/→ where it is kept · enter next/continue · ${helpLine(['back'])}`;

/** The rows of the screen, in order: each key's value and store (and variable, when kept in one), then continue. */
function keyRows(profile: Profile): Row[] {
  const rows: Row[] = [];
  for (const name of KEY_NAMES) {
    rows.push({ kind: 'value', name }, { kind: 'store', name });
    if (sourceOf(profile, name).store === 'env') rows.push({ kind: 'env', name });
  }
  rows.push({ kind: 'continue' });
  return rows;
}

/** The variable names as typed (a name typed, then the store moved away and back, is kept). */
function initialEnvNames(profile: Profile): Record<KeyName, string> {
  const names = {} as Record<KeyName, string>;
  for (const n of KEY_NAMES) {
    const s = sourceOf(profile, n);
    names[n] = s.store === 'env' ? s.name : DEFAULT_ENV[n];
  }
  return names;
}

/** Each key's problem: its value's, else (kept in a variable) its variable name's. */
function problemsOf(w: WizardContextValue, envNames: Record<KeyName, string>): Partial<Record<KeyName, string>> {
  const out: Partial<Record<KeyName, string>> = {};
  for (const n of KEY_NAMES) {
    const p =
      keyProblem(n, valueOf(w.state, n)) ?? (sourceOf(w.state.profile!, n).store === 'env' ? envNameProblem(envNames[n]) : undefined);
    if (p) out[n] = p;
  }
  return out;
}

/** On to the sources, once every key passes; a key kept in a variable and not typed is read now, as next time. */
function proceed(w: WizardContextValue, envNames: Record<KeyName, string>): void {
  const { state, actions, services } = w;
  const problems = problemsOf(w, envNames);
  const bad = KEY_NAMES.find((n) => problems[n] !== undefined);
  if (bad) return actions.notice('error', `${KEY_LABELS[bad]}: ${problems[bad]}`);
  for (const n of KEY_NAMES) {
    const value = sourceOf(state.profile!, n).store === 'env' && !valueOf(state, n) ? services.readEnv(envNames[n]) : undefined;
    const problem = value ? keyProblem(n, value) : undefined;
    if (problem) return actions.notice('error', `${KEY_LABELS[n]} from $${envNames[n]}: ${problem}`);
    if (value) actions.typeSecret(n, value);
  }
  actions.go('source');
}

export function KeysScreen() {
  const w = useWizard();
  const { state, actions } = w;
  const profile = state.profile!;
  const [envNames, setEnvNames] = useState(() => initialEnvNames(profile));
  const { row, rowNow, move } = useFocusRows(keyRows(profile));
  const setSource = (name: KeyName, source: SecretSource) => actions.updateProfile(withSource(profile, name, source));
  const setStore = (name: KeyName, store: Store) => setSource(name, store === 'env' ? { store, name: envNames[name] } : { store });
  const setEnvName = (name: KeyName, v: string) => {
    setEnvNames((all) => ({ ...all, [name]: v }));
    setSource(name, { store: 'env', name: v });
  };
  useKeys(
    KEYS,
    (c) => {
      const r = rowNow();
      if (c === 'up') move(-1);
      else if (c === 'down') move(1);
      else if (c === 'back') actions.back();
      else if (c === 'select') {
        if (r.kind === 'continue') proceed(w, envNames);
        else move(1);
      } else if ((c === 'left' || c === 'right') && r.kind === 'store') {
        const stores = storesOf(r.name);
        const i = Math.max(0, stores.indexOf(sourceOf(profile, r.name).store));
        setStore(r.name, stores[(i + (c === 'right' ? 1 : stores.length - 1)) % stores.length]!);
      }
    },
    { textFocus: () => rowNow().kind === 'value' || rowNow().kind === 'env' },
  );
  const problems = problemsOf(w, envNames);
  const focusOf = (kind: Row['kind'], name: KeyName) => ({
    here: row.kind === kind && 'name' in row && row.name === name,
    now: () => {
      const r = rowNow();
      return r.kind === kind && 'name' in r && r.name === name;
    },
  });
  return (
    <Frame title="keys" help={HELP}>
      <Text {...theme.muted}>Masked. Empty = not used (a sandbox runs without keys).</Text>
      {KEY_NAMES.map((name) => (
        <KeyBlock
          key={name}
          name={name}
          envName={envNames[name]}
          envProblem={problems[name] && !keyProblem(name, valueOf(state, name)) ? problems[name] : undefined}
          focusOf={(kind) => focusOf(kind, name)}
          onEnvName={(v) => setEnvName(name, v)}
        />
      ))}
      <Text {...(row.kind === 'continue' ? theme.selected : {})}>
        {row.kind === 'continue' ? theme.symbols.pointer : ' '} continue to the source files
      </Text>
    </Frame>
  );
}

interface KeyBlockProps {
  name: KeyName;
  envName: string;
  /** The variable name's problem (shown on its row). */
  envProblem: string | undefined;
  focusOf(kind: Row['kind']): { here: boolean; now: () => boolean };
  onEnvName(v: string): void;
}

/** One key: its masked value (with its check), where it is kept, and the variable's name when kept in one. */
function KeyBlock({ name, envName, envProblem, focusOf, onEnvName }: KeyBlockProps) {
  const { state, actions, services } = useWizard();
  const source = sourceOf(state.profile!, name);
  const value = valueOf(state, name);
  const problem = keyProblem(name, value);
  const unset = name === 'signInSecret' ? 'not set (for migrate at sign-in)' : 'not set';
  const missing = state.missingSecrets.includes(name);
  const [valueRow, storeRow, envRow] = [focusOf('value'), focusOf('store'), focusOf('env')];
  return (
    <Box flexDirection="column">
      <Field
        label={KEY_LABELS[name]}
        labelWidth={15}
        value={value}
        secret
        focus={valueRow.here}
        focusNow={valueRow.now}
        onChange={(v) => actions.typeSecret(name, v.trim())}
        placeholder={missing ? `not found (${source.store === 'env' ? `$${source.name} unset` : 'not in file'}), type it` : unset}
        status={value ? (problem ? { ok: false, text: problem } : { ok: true, text: `${value.length} chars` }) : undefined}
      />
      <Text {...(storeRow.here ? theme.selected : theme.muted)}>
        {storeRow.here ? theme.symbols.pointer : ' '} keep:{' '}
        {storesOf(name)
          .map((s) => (s === source.store ? `[${STORE_LABELS[s]}]` : ` ${STORE_LABELS[s]} `))
          .join(' ')}
      </Text>
      {source.store === 'env' ? (
        <Field
          label="  variable $"
          labelWidth={15}
          value={envName}
          focus={envRow.here}
          focusNow={envRow.now}
          onChange={onEnvName}
          status={
            envProblem
              ? { ok: false, text: envProblem }
              : services.readEnv(envName) !== undefined
                ? { ok: true, text: 'set in this shell' }
                : { ok: false, text: 'not set in this shell' }
          }
        />
      ) : null}
    </Box>
  );
}
