// Step 7: the migration running: progress, rate, ETA, counts and the latest failures; pause or stop safely.
import { Box, Text } from 'ink';
import { Frame } from '../components/Frame.js';
import { ProgressBar } from '../components/ProgressBar.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';

const KEYS: Command[] = ['pause', 'stop'];

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(s % 60).padStart(2, '0')}s`;
}

export function RunScreen() {
  const { state, actions, size } = useWizard();
  const run = state.run;
  useKeys(KEYS, (c) => (c === 'pause' ? actions.togglePause() : actions.stopRun()));
  // Running time only (pauses left out), and only the users this run did (not those resumed from the journal).
  const now = Date.now();
  const elapsed = run.startedAt ? now - run.startedAt - run.pausedMs - (run.pausedAt !== undefined ? now - run.pausedAt : 0) : 0;
  const rate = elapsed > 0 ? (run.done - run.resumed) / (elapsed / 1000) : 0;
  const eta = rate > 0 && run.total > run.done ? ((run.total - run.done) / rate) * 1000 : undefined;
  const status =
    run.status === 'paused'
      ? 'paused (p resumes)'
      : run.status === 'stopping'
        ? 'stopping: finishing in-flight users, flushing the journal'
        : 'running';
  return (
    <Frame title="run" help={helpLine(KEYS)}>
      <Text {...(run.status === 'running' ? theme.ok : theme.warning)}>
        {status}
        {run.atOnce ? ` · ${run.atOnce.limit} of ${run.atOnce.max} users at a time` : ''}
      </Text>
      <ProgressBar done={run.done} total={run.total} width={Math.max(40, size.columns) - 2} />
      <Text>
        {run.done}/{run.total} users · {rate.toFixed(1)}/s · elapsed {formatDuration(elapsed)} · ETA{' '}
        {eta === undefined ? '—' : formatDuration(eta)}
      </Text>
      <Text>
        <Text {...theme.ok}>imported {run.imported}</Text> · already present {run.alreadyPresent} ·{' '}
        <Text {...(run.failed ? theme.error : {})}>failed {run.failed}</Text> · skipped {run.skipped} · retries {run.retries}
      </Text>
      {run.staged ? (
        <Text {...theme.muted} wrap="truncate-end">
          {run.staged}
        </Text>
      ) : null}
      {run.latestFailures.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          <Text {...theme.error}>latest failures</Text>
          {run.latestFailures.map((f, i) => (
            <Text key={i} wrap="wrap">
              {f}
            </Text>
          ))}
        </Box>
      ) : null}
    </Frame>
  );
}
