// Step 8: the totals and the files the run wrote; run verify, try signing in, save the profile, or quit. The
// screen routes the keys and places the panels: RunFiles.tsx (the files), ResultsStatus.tsx (verify and save),
// SignInPanel.tsx and UndoPanel.tsx.
import { Box, Text } from 'ink';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';
import { countsLine, formatDuration } from './RunScreen.js';
import { SIGN_IN_HELP, SignInPanel } from './SignInPanel.js';
import { undoHelp, UndoPanel, type UndoPhase } from './UndoPanel.js';
import { useState } from 'react';
import type { RollbackOutcome } from '../services/types.js';
import type { RunState } from '../state/types.js';
import { syncResultLines } from './SyncLines.js';
import { formatCount as n } from '../../numbers.js';
import { RunFiles, useRunFilesPresent } from './RunFiles.js';
import { ResultsStatus } from './ResultsStatus.js';

export { runFileLines, signInStatusLine } from './RunFiles.js';

const KEYS: Command[] = ['verify', 'signIn', 'undo', 'save', 'quit', 'back'];

/** How the run ended, as the frame's title says it. */
function resultsTitle(run: RunState): string {
  const o = run.outcome;
  return o?.stopped === 'refused'
    ? 'results: refused, nothing written'
    : run.status === 'failed'
      ? 'results: the run stopped'
      : o?.stopped
        ? 'results: stopped (resumable)'
        : 'results: finished';
}

export function ResultsScreen() {
  const { state, actions, size } = useWizard();
  const { run, verify } = state;
  const o = run.outcome;
  const [undoing, setUndoing] = useState(false);
  // What the undo panel is at (its key help), and the undo once done: the run's users are gone, its journal retired.
  const [undoPhase, setUndoPhase] = useState<UndoPhase>('checking');
  const [undone, setUndone] = useState<RollbackOutcome | undefined>(undefined);
  const fullyUndone = undone !== undefined && undone.summary !== undefined && undone.summary.failed === 0;
  const present = useRunFilesPresent(o, verify, undone !== undefined);
  const signingIn = state.signIn.open;
  useKeys(
    KEYS,
    (c) => {
      if (c === 'verify') void actions.verify();
      else if (c === 'signIn') actions.openSignIn();
      else if (c === 'undo') {
        if (fullyUndone) return actions.notice('info', 'the run is undone already: nothing of it is left in the core');
        setUndoPhase('checking');
        setUndoing(true);
      } else if (c === 'save') void actions.save();
      else if (c === 'quit') void actions.quit();
      else actions.back();
    },
    // While the sign-in fields are open they take the keys (letters are text there; esc closes them).
    { isActive: !signingIn && !undoing },
  );
  const title = resultsTitle(run);
  const keys = fullyUndone ? KEYS.filter((k) => k !== 'undo') : KEYS;
  return (
    <Frame title={title} help={signingIn ? SIGN_IN_HELP : undoing ? undoHelp(undoPhase) : helpLine(keys, { back: 'plan' })}>
      {undoing ? (
        <UndoPanel
          onClose={() => setUndoing(false)}
          onPhase={(phase, outcome) => {
            setUndoPhase(phase);
            if (outcome) setUndone(outcome);
          }}
        />
      ) : null}
      {run.error && !signingIn ? (
        <Text {...theme.error} wrap="wrap">
          {run.error}
        </Text>
      ) : null}
      <Text wrap="wrap">
        total {n(run.total)} · {countsLine(run)}
        {o ? ` · ${formatDuration(o.durationMs)}` : ''}
      </Text>
      {signingIn
        ? null
        : syncResultLines(state.sync).map((line, i) => (
            <Text key={`sync${i}`} wrap="wrap">
              {line}
            </Text>
          ))}
      {signingIn ? <SignInPanel /> : null}
      {o && !signingIn ? (
        <RunFiles
          o={o}
          sandbox={state.target.status === 'done' ? state.target.value.sandbox : undefined}
          verify={verify}
          present={present}
        />
      ) : null}
      {run.latestFailures.length > 0 && !signingIn ? (
        <Box flexDirection="column" marginTop={1}>
          <Text {...theme.error}>latest failures (all of them are in the failures file and the report)</Text>
          {run.latestFailures.slice(-3).map((f, i) => (
            <Text key={i} wrap="wrap">
              {f}
            </Text>
          ))}
        </Box>
      ) : null}
      <ResultsStatus state={state} undone={undone !== undefined} hidden={signingIn} columns={size.columns} />
    </Frame>
  );
}
