// Step 5: where the users go: the sandbox (spawned here; its URL and store shown) or a remote core, then the
// preflight (/hello, /apiversion, the api key, /ee/featureflag) with its warnings shown before any write.
// This module routes the keys and sizes the findings' window; the panels are in TargetPanels.tsx.
import { useState } from 'react';
import { scrollWindow, wordWrappedRows } from '../fit.js';
import type { ProfileTarget } from '../../profiles/index.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useFocusRows } from '../hooks/useFocusRows.js';
import { helpLine, type Command } from '../keymap.js';
import { inWizardWords } from '../wizard-words.js';
import { ConnectionStatus, preflightFindings, TargetFields, type TargetRow as Row } from './TargetPanels.js';

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
  const findings = preflightFindings(pf, width);
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
      <TargetFields t={t} row={row} at={at} setTarget={setTarget} />
      <ConnectionStatus kind={t.kind} target={target} pf={pf} short={short} findings={findings} view={view} />
    </Frame>
  );
}
