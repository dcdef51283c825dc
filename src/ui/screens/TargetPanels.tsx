// The target screen's panels: the fields that say where the users go (sandbox or remote core), and below them the
// connection and the preflight's findings (the verdict first, then what failed, the warnings, what passed), each
// finding pre-wrapped so a tall one scrolls row by row instead of being cut.
import { Box, Text } from 'ink';
import { wrapToRows } from '../fit.js';
import type { ProfileTarget } from '../../profiles/index.js';
import { Field } from '../components/Field.js';
import type { PreflightResult, TargetConnection } from '../services/types.js';
import type { Task } from '../state/types.js';
import { theme } from '../theme.js';
import { inWizardWords } from '../wizard-words.js';

export type TargetRow = 'kind' | 'store' | 'url' | 'tenant' | 'app' | 'connect';
export type Finding = { key: string; text: string; style: Record<string, unknown> };

/** The preflight's findings as rows of the terminal's width: what failed, the warnings, then what passed. */
export function preflightFindings(pf: Task<PreflightResult>, width: number): Finding[] {
  const items: Finding[] =
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
  return items.flatMap((f) => wrapToRows(f.text, width).map((text, i) => ({ key: `${f.key}.${i}`, text, style: f.style })));
}

export interface TargetFieldsProps {
  t: ProfileTarget;
  row: TargetRow;
  at(r: TargetRow): () => boolean;
  setTarget(target: ProfileTarget): void;
}

/** Sandbox or remote, the store file or the core's URL, tenant and app, and the connect row. */
export function TargetFields({ t, row, at, setTarget }: TargetFieldsProps) {
  return (
    <>
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
    </>
  );
}

export interface ConnectionStatusProps {
  kind: ProfileTarget['kind'];
  target: Task<TargetConnection>;
  pf: Task<PreflightResult>;
  /** A short terminal: the connection's details fold into one line. */
  short: boolean;
  findings: Finding[];
  view: { first: number; count: number; hidden: number };
}

/** The connection (starting, failed, or where it is) and the preflight's verdict and findings in view. */
export function ConnectionStatus({ kind, target, pf, short, findings, view }: ConnectionStatusProps) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {target.status === 'running' ? (
        <Text {...theme.muted}>{kind === 'sandbox' ? 'starting the sandbox core…' : 'connecting…'}</Text>
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
  );
}
