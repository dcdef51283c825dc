// Step 8: the totals and the files the run wrote; run verify, try signing in, save the profile, or quit.
import { Box, Text } from 'ink';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';
import { countsLine, formatDuration } from './RunScreen.js';
import { TaskProgress } from '../components/TaskProgress.js';
import { SIGN_IN_HELP, SignInPanel } from './SignInPanel.js';
import { undoHelp, UndoPanel, type UndoPhase } from './UndoPanel.js';
import { useEffect, useState } from 'react';
import { access } from 'node:fs/promises';
import { sep } from 'node:path';
import type { RollbackOutcome, RunOutcome, TargetConnection, VerifyOutcome } from '../services/types.js';
import { rerunText } from '../../operations/rerun.js';
import type { Task } from '../state/types.js';
import { syncResultLines } from './SyncLines.js';
import { formatCount as n } from '../../numbers.js';

/**
 * Where every file the run (and verify) wrote is, and the sandbox store, as lines to wrap (never cut): with a run
 * folder, the folder then the names inside it on one line; otherwise each path.
 */
export function runFileLines(
  o: RunOutcome,
  sandbox: TargetConnection['sandbox'],
  verify: Task<VerifyOutcome>,
  /** Whether a file is there now (an undo retires the journal; a check file may never have been written). */
  exists: (path: string) => boolean = () => true,
): string[] {
  if (!o.paths) return ['files: none, nothing was written (no run folder, no journal)'];
  const files: [string, string | undefined][] = [
    ['journal', o.paths.journal],
    ['report', o.paths.report],
    ['failures', o.paths.failures],
    ['resume command', o.resumeFile],
    ['sign-in migration', o.paths.signIn],
    ['TOTP checks', verify.status === 'done' ? verify.value.totpChecksFile : undefined],
  ];
  const store = sandbox ? [`store ${sandbox.storePath}${sandbox.temporary ? ' (temporary, kept: the journal points at it)' : ''}`] : [];
  const folder = o.folder;
  const present = files.filter((f): f is [string, string] => f[1] !== undefined && exists(f[1]));
  if (folder && present.every(([, p]) => p.startsWith(folder + sep))) {
    return [`run folder ${folder}`, `  ${present.map(([, p]) => p.slice(folder.length + 1)).join(' · ')}`, ...store];
  }
  return [...present.map(([what, p]) => `${what} ${p}`), ...store];
}

/** The counts `auth-migrate signin-status` prints, in one line. */
export function signInStatusLine(s: NonNullable<RunOutcome['signInStatus']>): string {
  const per = Object.entries(s.byAlgorithm)
    .filter(([, n]) => n > 0)
    .map(([a, n]) => `${a} ${n}`)
    .join(', ');
  return `sign-in migration: ${s.waiting} waiting${per ? ` (${per})` : ''} · signed in ${s.ended['sign-in']} · password set ${s.ended['password-set']} · expired ${s.ended.expired} (auth-migrate signin-status)`;
}

const KEYS: Command[] = ['verify', 'signIn', 'undo', 'save', 'quit', 'back'];

/** Which of `paths` are there, looked up again when `when` changes (undefined until the first look). */
function useExistingFiles(paths: string[], when: string): Set<string> | undefined {
  const [found, setFound] = useState<Set<string> | undefined>(undefined);
  const key = `${when}\n${paths.join('\n')}`;
  useEffect(() => {
    let live = true;
    void Promise.all(
      paths.map((p) =>
        access(p).then(
          () => p,
          () => undefined,
        ),
      ),
    ).then((there) => {
      if (live) setFound(new Set(there.filter((p): p is string => p !== undefined)));
    });
    return () => {
      live = false;
    };
  }, [key]);
  return found;
}

export function ResultsScreen() {
  const { state, actions, size } = useWizard();
  const { run, verify, save } = state;
  const o = run.outcome;
  const [undoing, setUndoing] = useState(false);
  // What the undo panel is at (its key help), and the undo once done: the run's users are gone, its journal retired.
  const [undoPhase, setUndoPhase] = useState<UndoPhase>('checking');
  const [undone, setUndone] = useState<RollbackOutcome | undefined>(undefined);
  const fullyUndone = undone !== undefined && undone.summary !== undefined && undone.summary.failed === 0;
  const listed = o ? [o.paths?.journal, o.paths?.report, o.paths?.failures, o.resumeFile, o.paths?.signIn] : [];
  if (verify.status === 'done') listed.push(verify.value.totpChecksFile);
  const present = useExistingFiles(
    listed.filter((p): p is string => p !== undefined),
    `${verify.status}:${String(undone !== undefined)}`,
  );
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
  const title =
    o?.stopped === 'refused'
      ? 'results: refused, nothing written'
      : run.status === 'failed'
        ? 'results: the run stopped'
        : o?.stopped
          ? 'results: stopped (resumable)'
          : 'results: finished';
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
        <Box flexDirection="column" marginTop={1}>
          {runFileLines(
            o,
            state.target.status === 'done' ? state.target.value.sandbox : undefined,
            verify,
            (p) => present?.has(p) ?? true,
          ).map((line, i) => (
            <Text key={i} wrap="wrap">
              {line}
            </Text>
          ))}
          {o.stopped && o.stopped !== 'refused' ? <Text wrap="wrap">resume: {rerunText(o.rerun)}</Text> : null}
          {o.signInStatus ? <Text wrap="wrap">{signInStatusLine(o.signInStatus)}</Text> : null}
        </Box>
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
      <Box flexDirection="column" marginTop={1} display={signingIn ? 'none' : 'flex'}>
        {verify.status === 'running' ? (
          <TaskProgress
            label="verifying"
            done={state.verifyProgress?.checked ?? 0}
            total={state.verifyProgress?.total ?? 0}
            width={Math.max(40, size.columns)}
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
    </Frame>
  );
}
