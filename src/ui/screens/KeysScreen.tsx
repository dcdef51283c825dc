// Step 2: the api key, licence key and signer key, checked as typed, always masked, and where each is kept.
import { Box, Text } from 'ink';
import { useState } from 'react';
import { assertEnvName, checkSecret, SECRET_LABELS, SECRET_NAMES, type SecretName, type SecretSource } from '../../profiles/index.js';
import { Field } from '../components/Field.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useFocusRows } from '../hooks/useFocusRows.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';

type Row = { kind: 'value' | 'store' | 'env'; name: SecretName } | { kind: 'continue' };
const STORES: SecretSource['store'][] = ['none', 'file', 'env'];
const STORE_LABELS: Record<SecretSource['store'], string> = { none: "don't store", file: 'secrets file (0600)', env: 'env variable' };
const KEYS: Command[] = ['up', 'down', 'left', 'right', 'select', 'back'];
const HELP = `↑/↓ move · ←/→ where it is kept · enter next/continue · ${helpLine(['back'])}`;

function envNameProblem(name: string): string | undefined {
  try {
    assertEnvName(name);
    return undefined;
  } catch {
    return 'not a variable name';
  }
}

export function KeysScreen() {
  const { state, actions, services } = useWizard();
  const profile = state.profile!;
  const [envNames, setEnvNames] = useState<Record<SecretName, string>>(() => {
    const names = {} as Record<SecretName, string>;
    for (const n of SECRET_NAMES) {
      const s = profile.secrets[n];
      names[n] = s.store === 'env' ? s.name : `AUTH_MIGRATE_${n === 'apiKey' ? 'API' : n === 'licenseKey' ? 'LICENSE' : 'SIGNER'}_KEY`;
    }
    return names;
  });
  const rows: Row[] = [];
  for (const name of SECRET_NAMES) {
    rows.push({ kind: 'value', name }, { kind: 'store', name });
    if (profile.secrets[name].store === 'env') rows.push({ kind: 'env', name });
  }
  rows.push({ kind: 'continue' });
  const { row, rowNow, move } = useFocusRows(rows);
  const isText = (r: Row) => r.kind === 'value' || r.kind === 'env';
  const at = (kind: Row['kind'], name: SecretName) => () => {
    const r = rowNow();
    return r.kind === kind && 'name' in r && r.name === name;
  };

  const setStore = (name: SecretName, store: SecretSource['store']) => {
    const source: SecretSource = store === 'env' ? { store, name: envNames[name] } : { store };
    actions.updateProfile({ ...profile, secrets: { ...profile.secrets, [name]: source } });
  };
  const problems = SECRET_NAMES.map(
    (n) => checkSecret(n, state.secrets[n] ?? '') ?? (profile.secrets[n].store === 'env' ? envNameProblem(envNames[n]) : undefined),
  );
  const proceed = () => {
    const bad = problems.findIndex((p) => p !== undefined);
    if (bad >= 0) return actions.notice('error', `${SECRET_LABELS[SECRET_NAMES[bad]!]}: ${problems[bad]}`);
    // A secret to be read from the environment and not typed here is read now, as it will be next time.
    for (const n of SECRET_NAMES) {
      const value = profile.secrets[n].store === 'env' && !state.secrets[n] ? services.readEnv(envNames[n]) : undefined;
      const problem = value ? checkSecret(n, value) : undefined;
      if (problem) return actions.notice('error', `${SECRET_LABELS[n]} from $${envNames[n]}: ${problem}`);
      if (value) actions.typeSecret(n, value);
    }
    actions.go('source');
  };

  useKeys(
    KEYS,
    (c) => {
      const row = rowNow();
      if (c === 'up') move(-1);
      else if (c === 'down') move(1);
      else if (c === 'back') actions.back();
      else if (c === 'select') {
        if (row.kind === 'continue') proceed();
        else move(1);
      } else if ((c === 'left' || c === 'right') && row.kind === 'store') {
        const i = STORES.indexOf(profile.secrets[row.name].store);
        setStore(row.name, STORES[(i + (c === 'right' ? 1 : STORES.length - 1)) % STORES.length]!);
      }
    },
    { textFocus: () => isText(rowNow()) },
  );

  return (
    <Frame title="keys" help={HELP}>
      <Text {...theme.muted}>Secrets are masked. Empty = not used (the sandbox then runs without keys).</Text>
      {SECRET_NAMES.map((name, i) => {
        const source = profile.secrets[name];
        const here = (kind: Row['kind']) => row.kind === kind && 'name' in row && row.name === name;
        const value = state.secrets[name] ?? '';
        const problem = checkSecret(name, value);
        const missing = state.missingSecrets.includes(name);
        return (
          <Box key={name} flexDirection="column">
            <Field
              label={SECRET_LABELS[name]}
              value={value}
              secret
              focus={here('value')}
              focusNow={at('value', name)}
              onChange={(v) => actions.typeSecret(name, v.trim())}
              placeholder={missing ? `not found (${source.store === 'env' ? `$${source.name} unset` : 'not in file'}), type it` : 'not set'}
              status={value ? (problem ? { ok: false, text: problem } : { ok: true, text: `${value.length} chars` }) : undefined}
            />
            <Text {...(here('store') ? theme.selected : theme.muted)}>
              {here('store') ? theme.symbols.pointer : ' '} keep:{' '}
              {STORES.map((s) => (s === source.store ? `[${STORE_LABELS[s]}]` : ` ${STORE_LABELS[s]} `)).join(' ')}
            </Text>
            {source.store === 'env' ? (
              <Field
                label="  variable $"
                value={envNames[name]}
                focus={here('env')}
                focusNow={at('env', name)}
                onChange={(v) => {
                  setEnvNames((all) => ({ ...all, [name]: v }));
                  actions.updateProfile({ ...profile, secrets: { ...profile.secrets, [name]: { store: 'env', name: v } } });
                }}
                status={
                  problems[i] && !problem
                    ? { ok: false, text: problems[i]! }
                    : services.readEnv(envNames[name]) !== undefined
                      ? { ok: true, text: 'set in this shell' }
                      : { ok: false, text: 'not set in this shell' }
                }
              />
            ) : null}
          </Box>
        );
      })}
      <Text {...(row.kind === 'continue' ? theme.selected : {})}>
        {row.kind === 'continue' ? theme.symbols.pointer : ' '} continue to the source files
      </Text>
    </Frame>
  );
}
