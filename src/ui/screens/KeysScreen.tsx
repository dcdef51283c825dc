// Step 2: the api key, licence key and signer key, checked as typed, always masked, and where each is kept.
import { Box, Text } from 'ink';
import { useState } from 'react';
import { assertEnvName, checkSecret, SECRET_LABELS, SECRET_NAMES, type SecretName, type SecretSource } from '../../profiles/index.js';
import { Field } from '../components/Field.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useSyncState } from '../hooks/useSyncState.js';
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
  const [focus, setFocus, getFocus] = useSyncState(0);
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
  const row = rows[Math.min(focus, rows.length - 1)]!;

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
      const row = rows[Math.min(getFocus(), rows.length - 1)]!;
      if (c === 'up') setFocus((f) => Math.max(0, f - 1));
      else if (c === 'down') setFocus((f) => Math.min(rows.length - 1, f + 1));
      else if (c === 'back') actions.back();
      else if (c === 'select') {
        if (row.kind === 'continue') proceed();
        else setFocus((f) => Math.min(rows.length - 1, f + 1));
      } else if ((c === 'left' || c === 'right') && row.kind === 'store') {
        const i = STORES.indexOf(profile.secrets[row.name].store);
        setStore(row.name, STORES[(i + (c === 'right' ? 1 : STORES.length - 1)) % STORES.length]!);
      }
    },
    { textFocus: row.kind === 'value' || row.kind === 'env' },
  );

  return (
    <Frame title="keys" help={HELP}>
      <Text {...theme.muted}>Secrets are masked. Empty = not used (the sandbox then runs without keys).</Text>
      {SECRET_NAMES.map((name, i) => {
        const source = profile.secrets[name];
        const at = (kind: Row['kind']) => row.kind === kind && 'name' in row && row.name === name;
        const value = state.secrets[name] ?? '';
        const problem = checkSecret(name, value);
        const missing = state.missingSecrets.includes(name);
        return (
          <Box key={name} flexDirection="column">
            <Field
              label={SECRET_LABELS[name]}
              value={value}
              secret
              focus={at('value')}
              onChange={(v) => actions.typeSecret(name, v.trim())}
              placeholder={missing ? `not found (${source.store === 'env' ? `$${source.name} unset` : 'not in file'}), type it` : 'not set'}
              status={value ? (problem ? { ok: false, text: problem } : { ok: true, text: `${value.length} chars` }) : undefined}
            />
            <Text {...(at('store') ? theme.selected : theme.muted)}>
              {at('store') ? theme.symbols.pointer : ' '} keep:{' '}
              {STORES.map((s) => (s === source.store ? `[${STORE_LABELS[s]}]` : ` ${STORE_LABELS[s]} `)).join(' ')}
            </Text>
            {source.store === 'env' ? (
              <Field
                label="  variable $"
                value={envNames[name]}
                focus={at('env')}
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
