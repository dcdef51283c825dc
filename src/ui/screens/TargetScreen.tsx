// Step 5: where the users go: the sandbox (spawned here; its URL and store shown) or a remote core, then the
// preflight (/hello, /apiversion, the api key, /ee/featureflag) with its warnings shown before any write.
import { Box, Text } from 'ink';
import { useState } from 'react';
import { scrollWindow, wordWrappedRows, wrapToRows } from '../fit.js';
import type { ProfileTarget } from '../../profiles/index.js';
import { Field } from '../components/Field.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useFocusRows } from '../hooks/useFocusRows.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';
import { inWizardWords } from '../wizard-words.js';

type Row = 'kind' | 'store' | 'url' | 'tenant' | 'app' | 'connect';
const KEYS: Command[] = ['up', 'down', 'pageUp', 'pageDown', 'left', 'right', 'select', 'continue', 'back'];

export function TargetScreen() {
  const { state, actions, size } = useWizard();
  const profile = state.profile!;
  const t = profile.target;
  const rows: Row[] = t.kind === 'sandbox' ? ['kind', 'store', 'connect'] : ['kind', 'url', 'tenant', 'app', 'connect'];
  const { row, rowNow, move } = useFocusRows(rows);
  const at = (r: Row) => () => rowNow() === r;
  const setTarget = (target: ProfileTarget) => actions.updateProfile({ ...profile, target });
  const remote = t.kind === 'remote' ? t : { kind: 'remote' as const, url: '', tenant: undefined, app: undefined };
  const connect = () => {
    if (t.kind === 'remote' && !/^https?:\/\/\S+$/.test(t.url))
      return actions.notice('error', 'the core URL must look like http://localhost:3567');
    void actions.connect(
      t.kind === 'sandbox'
        ? { kind: 'sandbox', store: t.store || undefined }
        : { kind: 'remote', url: t.url, tenant: t.tenant || undefined, app: t.app || undefined },
    );
  };
  const pf = state.preflight;
  // The preflight's findings scroll (pgup/pgdn) when they are taller than the rows below the fields.
  const [findingsFirst, setFindingsFirst] = useState(0);

  useKeys(
    KEYS,
    (c) => {
      const row = rowNow();
      if (c === 'up') move(-1);
      else if (c === 'down') move(1);
      else if (c === 'pageUp' || c === 'pageDown')
        setFindingsFirst(Math.max(0, Math.min(findings.length - 1, view.first + (c === 'pageUp' ? -1 : 1) * Math.max(1, view.count - 1))));
      else if (c === 'back') actions.back();
      else if ((c === 'left' || c === 'right') && row === 'kind') {
        setTarget(t.kind === 'sandbox' ? { ...remote, kind: 'remote' } : { kind: 'sandbox' });
        actions.resetTarget();
      } else if (c === 'select') {
        // Enter in a field moves on (the fields have no submit of their own, so one press moves once).
        if (row === 'connect') connect();
        else move(1);
      } else if (c === 'continue') {
        if (pf.status !== 'done') actions.notice('error', 'connect first (enter on "connect and preflight")');
        else if (!pf.value.ok) actions.notice('error', 'the preflight found a problem that would stop the run: fix it, then connect again');
        else {
          actions.go('plan');
          void actions.plan();
        }
      }
    },
    { textFocus: () => rowNow() !== 'kind' && rowNow() !== 'connect' },
  );

  const target = state.target;
  const short = size.rows < 24;
  const width = Math.max(40, size.columns);
  const items: { key: string; text: string; style: Record<string, unknown> }[] =
    pf.status !== 'done'
      ? []
      : [
          ...pf.value.checks
            .filter((c) => !c.ok)
            .map((c) => ({
              key: `x${c.name}`,
              text: `${theme.symbols.fail} ${c.name.padEnd(11)}${inWizardWords(c.detail)}`,
              style: theme.error,
            })),
          ...pf.value.warnings.map((w, i) => ({ key: `w${i}`, text: `${theme.symbols.warn} ${inWizardWords(w)}`, style: theme.warning })),
          ...pf.value.checks
            .filter((c) => c.ok)
            .map((c) => ({
              key: `v${c.name}`,
              text: `${theme.symbols.ok} ${c.name.padEnd(11)}${inWizardWords(c.detail)}`,
              style: theme.muted,
            })),
        ];
  // Pre-wrapped to the terminal's width, so a finding taller than the room scrolls row by row instead of being cut.
  const findings = items.flatMap((f) => wrapToRows(f.text, width).map((text, i) => ({ key: `${f.key}.${i}`, text, style: f.style })));
  const help = `←/→ sandbox/remote · ↑/↓ move · enter next/connect · ${helpLine(['continue', 'back'])}`;
  const noticeRows = state.notice ? wordWrappedRows(inWizardWords(state.notice.text), width) : 1;
  // Title, fields, the connect row, a margin, the connection line and the verdict come before the findings.
  const above = 2 + rows.length + 1 + (short ? 1 : 3) + 1;
  const room = size.rows - 1 - above - noticeRows - wordWrappedRows(help, width);
  const view = scrollWindow(
    findings.map(() => 1),
    Math.max(1, room),
    findingsFirst,
  );
  return (
    <Frame title="target" help={view.hidden > 0 || view.first > 0 ? `${help} · pgup/dn scroll` : help}>
      <Text {...(row === 'kind' ? theme.selected : {})}>
        {row === 'kind' ? theme.symbols.pointer : ' '} target {t.kind === 'sandbox' ? '[sandbox]  remote core ' : ' sandbox  [remote core]'}
      </Text>
      {t.kind === 'sandbox' ? (
        <Field
          label="store file"
          value={t.store ?? ''}
          focus={row === 'store'}
          focusNow={at('store')}
          onChange={(v) => setTarget({ kind: 'sandbox', store: v })}
          placeholder="empty = a new temporary store"
        />
      ) : (
        <>
          <Field
            label="core URL"
            value={t.url}
            focus={row === 'url'}
            focusNow={at('url')}
            onChange={(url) => setTarget({ ...t, url: url.trim() })}
            placeholder="http://localhost:3567"
          />
          <Field
            label="tenant"
            value={t.tenant ?? ''}
            focus={row === 'tenant'}
            focusNow={at('tenant')}
            onChange={(v) => setTarget({ ...t, tenant: v.trim() || undefined })}
            placeholder="public"
          />
          <Field
            label="app"
            value={t.app ?? ''}
            focus={row === 'app'}
            focusNow={at('app')}
            onChange={(v) => setTarget({ ...t, app: v.trim() || undefined })}
            placeholder="public"
          />
        </>
      )}
      <Text {...(row === 'connect' ? theme.selected : {})}>{row === 'connect' ? theme.symbols.pointer : ' '} connect and preflight</Text>
      <Box flexDirection="column" marginTop={1}>
        {target.status === 'running' ? (
          <Text {...theme.muted}>{t.kind === 'sandbox' ? 'starting the sandbox core…' : 'connecting…'}</Text>
        ) : null}
        {target.status === 'failed' ? <Text {...theme.error}>{target.error}</Text> : null}
        {/* On a short terminal the connection's details fold into one line: the preflight's verdict needs the rows. */}
        {target.status === 'done' && short ? (
          <Text wrap="truncate-end">{target.value.sandbox ? `sandbox ${target.value.url}` : `core ${target.value.url}`}</Text>
        ) : null}
        {target.status === 'done' && !short ? (
          <>
            <Text wrap="wrap">url {target.value.url}</Text>
            {target.value.sandbox ? (
              <Text wrap="wrap">
                store {target.value.sandbox.storePath}
                {target.value.sandbox.temporary ? ' (temporary: removed when the wizard exits)' : ''}
              </Text>
            ) : null}
          </>
        ) : null}
        {pf.status === 'running' ? <Text {...theme.muted}>preflight…</Text> : null}
        {pf.status === 'failed' ? <Text {...theme.error}>preflight failed: {pf.error}</Text> : null}
        {pf.status === 'done' ? (
          <>
            {/* The verdict first, then what failed and the warnings, then what passed: each whole, scrolled. */}
            <Text {...(pf.value.ok ? theme.ok : theme.error)} wrap="wrap">
              {pf.value.ok ? 'preflight passed: c continues to the plan' : 'preflight failed: fix the problem named below'}
            </Text>
            {findings.slice(view.first, view.first + view.count).map((f) => (
              <Text key={f.key} {...f.style} wrap="truncate-end">
                {f.text}
              </Text>
            ))}
            {view.hidden > 0 ? <Text {...theme.muted}>↓ {view.hidden} more (pgdn)</Text> : null}
          </>
        ) : null}
      </Box>
    </Frame>
  );
}
