// The results screen's lower block: verify's progress and what it found (the first few problems), and whether the
// profile was saved. Kept mounted (hidden, not unmounted) while the sign-in panel is open.
import { Box, Text } from 'ink';
import { TaskProgress } from '../components/TaskProgress.js';
import { formatCount as n } from '../../numbers.js';
import type { WizardState } from '../state/types.js';
import { theme } from '../theme.js';

export interface ResultsStatusProps {
  state: Pick<WizardState, 'verify' | 'verifyProgress' | 'save'>;
  /** An undo ran since: verify's result is from before it. */
  undone: boolean;
  hidden: boolean;
  columns: number;
}

export function ResultsStatus({ state, undone, hidden, columns }: ResultsStatusProps) {
  const { verify, save } = state;
  return (
    <Box flexDirection="column" marginTop={1} display={hidden ? 'none' : 'flex'}>
      {verify.status === 'running' ? (
        <TaskProgress
          label="verifying"
          done={state.verifyProgress?.checked ?? 0}
          total={state.verifyProgress?.total ?? 0}
          width={Math.max(40, columns)}
        />
      ) : null}
      {verify.status === 'failed' ? (
        <Text {...theme.error} wrap="wrap">
          verify: {verify.error}
        </Text>
      ) : null}
      {verify.status === 'done' ? (
        <>
          <Text {...(verify.value.exitCode ? theme.error : theme.ok)} wrap="wrap">
            {undone ? 'before the undo, ' : ''}verify: {n(verify.value.counts.ok)}/{n(verify.value.counts.total)} users ok,{' '}
            {n(verify.value.notOk)} with problems, {n(verify.value.counts.skipped)} skipped by the run
            {verify.value.totpCodesChecked ? ' (TOTP codes checked)' : ''}
          </Text>
          {verify.value.problems.slice(0, 3).map((v, i) => (
            <Text key={i} wrap="wrap" {...theme.muted}>
              {v.outcome}: {v.id}: {v.differences.join('; ')}
            </Text>
          ))}
        </>
      ) : null}
      {save.status === 'done' ? (
        <Text {...theme.ok} wrap="wrap">
          profile saved in {save.value} (it is also saved at every move between screens; secrets only as chosen)
        </Text>
      ) : null}
      {save.status === 'failed' ? <Text {...theme.error}>save failed: {save.error}</Text> : null}
    </Box>
  );
}
