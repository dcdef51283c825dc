// Step 3: the export files (Tab completes paths), their formats (detected, changeable) and the Firebase hash parameters.
import { Box, Text } from 'ink';
import { withHashConfig } from '../../profiles/index.js';
import { useState } from 'react';
import { Field } from '../components/Field.js';
import { Frame } from '../components/Frame.js';
import { PathInput } from '../components/PathInput.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useFocusRows } from '../hooks/useFocusRows.js';
import { looksLikePath } from '../services/paths.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';

type Row = { kind: 'path' } | { kind: 'file'; index: number } | { kind: 'hash' } | { kind: 'providers' } | { kind: 'continue' };
const KEYS: Command[] = ['up', 'down', 'left', 'right', 'delete', 'select', 'back'];

/** `google.com=google, apple.com=apple` <-> {"google.com": "google", ...}; undefined when a pair is malformed. */
export function parseProviderMap(text: string): Record<string, string> | undefined {
  const map: Record<string, string> = {};
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^=\s]+)\s*=\s*([^=\s]+)$/.exec(pair);
    if (!m) return undefined;
    map[m[1]!] = m[2]!;
  }
  return map;
}

export function formatProviderMap(map: Record<string, string> | undefined): string {
  return Object.entries(map ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

export function SourceScreen() {
  const { state, actions, services } = useWizard();
  const profile = state.profile!;
  const [path, setPath] = useState('');
  const [hashText, setHashText] = useState('');
  const [providers, setProviders] = useState(() => formatProviderMap(profile.providerMap));
  const rows: Row[] = [
    { kind: 'path' },
    ...profile.sources.map((_, index) => ({ kind: 'file' as const, index })),
    { kind: 'hash' },
    { kind: 'providers' },
    { kind: 'continue' },
  ];
  const { row, rowNow, move } = useFocusRows(rows);
  const isText = (r: Row) => r.kind === 'path' || r.kind === 'hash' || r.kind === 'providers';
  const at = (kind: Row['kind']) => () => rowNow().kind === kind;

  const addFile = async (value: string) => {
    if (!value.trim()) return;
    const p = services.resolvePath(value.trim());
    try {
      const format = await services.detectFormat(p);
      actions.updateProfile({ ...profile, sources: [...profile.sources, { path: p, format }] });
      setPath('');
      actions.notice('info', `added ${p} (detected ${format})`);
    } catch (err) {
      // The field is emptied, so the next path is typed fresh instead of being appended to the one that failed.
      setPath('');
      actions.notice('error', `${value.trim()}: ${(err as Error).message}`);
    }
  };
  const parseHash = async (text: string) => {
    if (!text.trim()) return;
    try {
      const { hashConfig, signerKey } = await services.parseHashConfig(text);
      const next = withHashConfig(profile, hashConfig, signerKey);
      actions.updateProfile(next);
      if (signerKey) actions.typeSecret('signerKey', signerKey);
      setHashText('');
      const kept = next.secrets.signerKey.store === 'file' ? 'kept in the secrets file (0600)' : 'kept as chosen on the keys screen';
      actions.notice(
        'info',
        signerKey ? `hash parameters read; the signer key went to the keys (masked), ${kept}` : 'hash parameters read',
      );
    } catch (err) {
      actions.notice('error', (err as Error).message);
    }
  };
  const saveProviders = (text: string) => {
    const map = parseProviderMap(text);
    if (!map) return actions.notice('error', 'write the provider map as source=target pairs: google.com=google, apple.com=apple');
    actions.updateProfile({ ...profile, providerMap: Object.keys(map).length > 0 ? map : undefined });
    actions.notice('info', Object.keys(map).length > 0 ? `provider map: ${formatProviderMap(map)}` : 'default provider map');
  };
  const proceed = () => {
    if (path.trim()) return actions.notice('error', `${path.trim()} is typed in "add file" but not added: enter there adds it`);
    if (profile.sources.length === 0) return actions.notice('error', 'add at least one export file first');
    actions.go('preview');
    void actions.validate();
  };

  useKeys(
    KEYS,
    (c) => {
      const row = rowNow();
      if (c === 'up' || c === 'down') {
        // Text typed into a field and left without enter is taken as entered, never dropped.
        if (row.kind === 'hash' && hashText.trim()) void parseHash(hashText);
        if (row.kind === 'providers' && providers !== formatProviderMap(profile.providerMap)) saveProviders(providers);
        move(c === 'up' ? -1 : 1);
      } else if (c === 'back') actions.back();
      else if (c === 'select' && row.kind === 'continue') proceed();
      else if (c === 'select' && row.kind === 'file') move(1);
      else if (row.kind === 'file' && (c === 'left' || c === 'right')) {
        const formats = services.formats;
        const sources = [...profile.sources];
        const s = sources[row.index]!;
        const i = formats.indexOf(s.format ?? '');
        sources[row.index] = { ...s, format: formats[(i + (c === 'right' ? 1 : formats.length - 1)) % formats.length] };
        actions.updateProfile({ ...profile, sources });
      } else if (row.kind === 'file' && c === 'delete') {
        actions.updateProfile({ ...profile, sources: profile.sources.filter((_, i) => i !== row.index) });
      }
    },
    { textFocus: () => isText(rowNow()) },
  );

  const h = profile.hashConfig;
  const help =
    row.kind === 'file'
      ? `←/→ change format · x remove · ↑/↓ move · ${helpLine(['back'])}`
      : row.kind === 'path'
        ? `tab complete · enter add the file · ↑/↓ move · ${helpLine(['back'])}`
        : row.kind === 'hash'
          ? `paste hash_config { … }, its JSON or its file path, enter · ↑/↓ move · ${helpLine(['back'])}`
          : row.kind === 'providers'
            ? `source=target pairs (google.com=google), enter · ↑/↓ move · ${helpLine(['back'])}`
            : `enter validate and preview · ↑/↓ move · ${helpLine(['back'])}`;
  return (
    <Frame title="source files" help={help}>
      <PathInput
        label="add file"
        value={path}
        focus={row.kind === 'path'}
        focusNow={at('path')}
        onChange={setPath}
        onSubmit={(v) => void addFile(v)}
        complete={services.completePath}
      />
      <Box flexDirection="column" marginY={1}>
        {profile.sources.length === 0 ? <Text {...theme.muted}> no files yet</Text> : null}
        {profile.sources.map((s, index) => {
          const on = row.kind === 'file' && row.index === index;
          return (
            <Text key={`${s.path}-${index}`} {...(on ? theme.selected : {})} wrap="wrap">
              {on ? theme.symbols.pointer : ' '} {`[${s.format ?? 'detect'}]`.padEnd(12)} {s.path}
            </Text>
          );
        })}
      </Box>
      <Field
        label="hash params"
        value={hashText}
        focus={row.kind === 'hash'}
        focusNow={at('hash')}
        // Pasted parameters hold the signer key: masked. A file's path is shown as typed.
        secret={!looksLikePath(hashText)}
        joinLines
        onChange={setHashText}
        onSubmit={(text) => void parseHash(text)}
        placeholder={h ? '' : 'Firebase only: paste hash_config { … } or its file'}
      />
      {h ? (
        <Text {...theme.muted}>
          {'  '}
          {h.algorithm ?? 'SCRYPT'} · salt separator {h.saltSeparator} · rounds {h.rounds} · mem_cost {h.memCost} · signer key{' '}
          {state.secrets.signerKey ? 'set' : 'not set'}
        </Text>
      ) : null}
      <Field
        label="provider map"
        value={providers}
        focus={row.kind === 'providers'}
        focusNow={at('providers')}
        onChange={setProviders}
        onSubmit={saveProviders}
        placeholder="default (google.com=google, github.com=github, …)"
      />
      <Text {...(row.kind === 'continue' ? theme.selected : {})}>
        {row.kind === 'continue' ? theme.symbols.pointer : ' '} validate and preview
      </Text>
    </Frame>
  );
}
