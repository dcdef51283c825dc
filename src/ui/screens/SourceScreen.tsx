// Step 3: the export files (Tab completes paths), their formats (detected, changeable) and the Firebase hash parameters.
// What entering each field does is in source-edits.ts; this module routes the keys and lays the fields out.
import { Box, Text } from 'ink';
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
import type { Profile } from '../../profiles/index.js';
import { formatProviderMap } from './provider-map.js';
import { sourceEdits } from './source-edits.js';

export { formatProviderMap, parseProviderMap } from './provider-map.js';

type Row = { kind: 'path' } | { kind: 'file'; index: number } | { kind: 'hash' } | { kind: 'providers' } | { kind: 'continue' };
const KEYS: Command[] = ['up', 'down', 'left', 'right', 'delete', 'select', 'back'];

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

  const { addFile, parseHash, saveProviders, stepFormat, removeFile, proceed } = sourceEdits(
    { services, actions },
    { profile, path, setPath, setHashText },
  );

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
      else if (row.kind === 'file' && (c === 'left' || c === 'right')) stepFormat(row.index, c === 'right' ? 1 : -1);
      else if (row.kind === 'file' && c === 'delete') removeFile(row.index);
    },
    { textFocus: () => isText(rowNow()) },
  );

  const h = profile.hashConfig;
  return (
    <Frame title="source files" help={sourceHelp(row)}>
      <PathInput
        label="add file"
        value={path}
        focus={row.kind === 'path'}
        focusNow={at('path')}
        onChange={setPath}
        onSubmit={(v) => void addFile(v)}
        complete={services.completePath}
      />
      <SourceFiles profile={profile} row={row} />
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
      {h ? <HashSummary hashConfig={h} signerKey={Boolean(state.secrets.signerKey)} /> : null}
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

/** The key help for the focused row. */
function sourceHelp(row: Row): string {
  return row.kind === 'file'
    ? `←/→ change format · x remove · ↑/↓ move · ${helpLine(['back'])}`
    : row.kind === 'path'
      ? `tab complete · enter add the file · ↑/↓ move · ${helpLine(['back'])}`
      : row.kind === 'hash'
        ? `paste hash_config { … }, its JSON or its file path, enter · ↑/↓ move · ${helpLine(['back'])}`
        : row.kind === 'providers'
          ? `source=target pairs (google.com=google), enter · ↑/↓ move · ${helpLine(['back'])}`
          : `enter validate and preview · ↑/↓ move · ${helpLine(['back'])}`;
}

/** The files added so far, each with its format; the focused one marked. */
function SourceFiles({ profile, row }: { profile: Profile; row: Row }) {
  return (
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
  );
}

/** The Firebase hash parameters read, in one line (never the signer key itself: only whether it is set). */
function HashSummary({ hashConfig: h, signerKey }: { hashConfig: NonNullable<Profile['hashConfig']>; signerKey: boolean }) {
  return (
    <Text {...theme.muted}>
      {'  '}
      {h.algorithm ?? 'SCRYPT'} · salt separator {h.saltSeparator} · rounds {h.rounds} · mem_cost {h.memCost} · signer key{' '}
      {signerKey ? 'set' : 'not set'}
    </Text>
  );
}
