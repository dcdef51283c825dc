// Step 7: the run operation on screen: its checks, the question before a real core is written, then progress,
// rate, ETA, counts (with what an earlier run already did), where it writes, and the latest failures and skips.
import { Box, Text } from 'ink';
import { confirmationLines } from '../../operations/confirm.js';
import { Frame } from '../components/Frame.js';
import { ProgressBar } from '../components/ProgressBar.js';
import { useWizard } from '../context.js';
import { wordWrappedRows } from '../fit.js';
import { inWizardWords } from '../wizard-words.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import type { RunState } from '../state/types.js';
import { theme } from '../theme.js';
import { formatCount as n } from '../../numbers.js';

const KEYS: Command[] = ['pause', 'stop'];
const CONFIRM_KEYS: Command[] = ['yes', 'back'];

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(s % 60).padStart(2, '0')}s`;
}

/** The counts line, the same words as `run` prints: users an earlier run finished are said as such. */
export function countsLine(run: Pick<RunState, 'imported' | 'alreadyPresent' | 'resumed' | 'failed' | 'skipped'>): string {
  const resumed = run.resumed > 0 ? ` (${n(run.resumed)} from the journal)` : '';
  return `imported ${n(run.imported)} · already present ${n(run.alreadyPresent)}${resumed} · failed ${n(run.failed)} · skipped ${n(run.skipped)}`;
}

export function RunScreen() {
  const { state, actions, size } = useWizard();
  const run = state.run;
  const confirming = run.status === 'confirming' && run.confirm !== undefined;
  useKeys(KEYS, (c) => (c === 'pause' ? actions.togglePause() : actions.stopRun()), { isActive: !confirming });
  useKeys(CONFIRM_KEYS, (c) => actions.answerConfirm(c === 'yes'), { isActive: confirming });
  const width = Math.max(40, size.columns);
  const stagedVia = state.profile?.via === 'bulk-staged';
  if (confirming) return <RunConfirm confirm={run.confirm!} sync={state.sync.on} staged={stagedVia} />;
  // Running time only (pauses left out), and only the users this run did (not those resumed from the journal).
  const now = Date.now();
  const elapsed = run.startedAt ? now - run.startedAt - run.pausedMs - (run.pausedAt !== undefined ? now - run.pausedAt : 0) : 0;
  const rate = elapsed > 0 ? (run.done - run.resumed) / (elapsed / 1000) : 0;
  const eta = rate > 0 && run.total > run.done ? ((run.total - run.done) / rate) * 1000 : undefined;
  const status = statusText(run.status);
  const f = run.folder;
  const where = f ? [`into ${f.url} (app ${f.app}, tenant ${f.tenant})`, `run folder ${f.folder ?? f.journal}`] : [];
  const fixed = [status, '', `${run.done}/${run.total} users · ${rate.toFixed(1)}/s · elapsed ${formatDuration(elapsed)}`, countsLine(run)];
  // Title, margin, notice and footer take four rows; what is left goes to the folder, then failures and skips.
  let rows = Math.max(1, size.rows - 1 - 4) - fixed.reduce((n, l) => n + wordWrappedRows(l, width), 0);
  const fit = (lines: string[]) => {
    // Measured as Ink wraps (at words), so no line is drawn past the rows the frame has.
    const shown: string[] = [];
    for (const l of lines) {
      if (wordWrappedRows(l, width) > rows) break;
      shown.push(l);
      rows -= wordWrappedRows(l, width);
    }
    return shown;
  };
  const whereLines = fit([
    ...where,
    ...(run.knowledge ? [inWizardWords(run.knowledge)] : []),
    ...(run.staged ? [inWizardWords(run.staged)] : []),
  ]);
  const failures = fit(run.latestFailures.length > 0 ? ['latest failures', ...run.latestFailures.slice(-3)] : []);
  const skips = fit(run.latestSkips.length > 0 ? ['latest skipped, with why', ...run.latestSkips.slice(-2)] : []);
  return (
    <Frame title={state.sync.on ? 'sync: only the changes since the earlier run' : 'run'} help={helpLine(KEYS)}>
      <Text {...(run.status === 'running' ? theme.ok : theme.warning)} wrap="truncate-end">
        {status}
        {run.atOnce ? ` · ${run.atOnce.limit} of ${run.atOnce.max} users at a time` : ''}
      </Text>
      <ProgressBar done={run.done} total={run.total} width={width - 2} />
      <Text wrap="wrap">
        {run.done}/{run.total} users · {rate.toFixed(1)}/s · elapsed {formatDuration(elapsed)} · ETA{' '}
        {eta === undefined ? '—' : formatDuration(eta)}
      </Text>
      <Text wrap="wrap">{countsLine(run)}</Text>
      {whereLines.map((line, i) => (
        <Text key={`w${i}`} {...theme.muted} wrap="wrap">
          {line}
        </Text>
      ))}
      <Box flexDirection="column">
        {failures.map((line, i) => (
          <Text key={`f${i}`} {...(i === 0 ? theme.error : {})} wrap="wrap">
            {line}
          </Text>
        ))}
        {skips.map((line, i) => (
          <Text key={`s${i}`} {...(i === 0 ? theme.warning : {})} wrap="wrap">
            {line}
          </Text>
        ))}
      </Box>
    </Frame>
  );
}

/** The question before a real core is written: what the run will write, and where. */
function RunConfirm({ confirm, sync, staged }: { confirm: NonNullable<RunState['confirm']>; sync: boolean; staged: boolean }) {
  const lines = confirmationLines(confirm);
  return (
    <Frame
      title={sync ? 'sync: confirm' : 'run: confirm'}
      help={helpLine(CONFIRM_KEYS, { yes: 'write to this core', back: 'cancel, nothing written' })}
    >
      {lines.map((line, i) => (
        <Text key={i} wrap="wrap" {...(i === 0 ? theme.warning : {})}>
          {line}
        </Text>
      ))}
      {staged ? (
        <Text wrap="wrap">
          write users via bulk-staged: the users are uploaded to the core&apos;s bulk-import list, then the run waits for the core&apos;s
          own job to take them in (it runs on the core&apos;s schedule; this screen shows its progress and when it runs next)
        </Text>
      ) : null}
      <Text>y writes to it; esc goes back to the plan and writes nothing</Text>
    </Frame>
  );
}

/** What the run is doing, in words. */
function statusText(status: RunState['status']): string {
  if (status === 'preparing') return 'checking the sources and the target (nothing written yet)…';
  if (status === 'paused') return 'paused (p resumes)';
  if (status === 'stopping') return 'stopping: finishing in-flight users, flushing the journal';
  return 'running';
}
