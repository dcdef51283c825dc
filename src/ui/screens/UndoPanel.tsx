// The results screen's undo: `u` starts the rollback operation; it checks every user the run made (progress), says
// what it will remove from which core (users changed since are kept), and waits for `y` (or `esc`: nothing removed);
// then it undoes with progress, every removal read back.
// UndoPanel runs the operation and takes the keys; UndoPhaseView below shows where it stands.
import { Box, Text } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { confirmationLines, type Confirmation } from '../../operations/confirm.js';
import type { RollbackOperationEvent } from '../../operations/rollback.js';
import { TaskProgress } from '../components/TaskProgress.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import type { RollbackOutcome } from '../services/types.js';
import { theme } from '../theme.js';

type Phase =
  | { kind: 'checking'; done: number; total: number }
  | { kind: 'confirm'; confirmation: Confirmation; notUndone: number }
  | { kind: 'undoing'; done: number; total: number }
  | { kind: 'done'; outcome: RollbackOutcome }
  | { kind: 'error'; message: string };

export type UndoPhase = Phase['kind'];

/** The key help of each phase: `y` only while the question waits for it. */
export function undoHelp(phase: UndoPhase): string {
  if (phase === 'confirm') return 'y undo it · esc cancel';
  if (phase === 'checking' || phase === 'undoing') return 'wait: the users are being checked or removed';
  return 'esc back to the results';
}

export function UndoPanel({
  onClose,
  onPhase,
}: {
  onClose: () => void;
  /** The phase as it changes (the results screen's key help), with the outcome once done. */
  onPhase?: (phase: UndoPhase, outcome?: RollbackOutcome) => void;
}) {
  const { actions, size } = useWizard();
  const [phase, setPhase] = useState<Phase>({ kind: 'checking', done: 0, total: 0 });
  const onPhaseRef = useRef(onPhase);
  onPhaseRef.current = onPhase;
  useEffect(() => {
    onPhaseRef.current?.(phase.kind, phase.kind === 'done' ? phase.outcome : undefined);
  }, [phase]);
  const answer = useRef<((ok: boolean) => void) | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let notUndone = 0;
    const set = (p: Phase) => live && setPhase(p);
    const onEvent = (e: RollbackOperationEvent) => {
      if (e.type === 'rollback-progress') set({ kind: e.phase === 'checking' ? 'checking' : 'undoing', done: e.done, total: e.total });
      else if (e.type === 'rollback-decided') notUndone = e.decisions.notUndone.length;
      else if (e.type === 'confirm') set({ kind: 'confirm', confirmation: e.confirmation, notUndone });
    };
    const confirm = () => new Promise<boolean>((resolve) => (answer.current = resolve));
    void actions.rollback({ onEvent, confirm }).then((r) => {
      if (typeof r === 'string') set({ kind: 'error', message: r });
      else if (r.refusal) onCloseRef.current();
      else set({ kind: 'done', outcome: r });
    });
    return () => {
      live = false;
      answer.current?.(false);
    };
  }, [actions]);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  useKeys(['yes', 'back'], (c) => {
    if (phase.kind === 'confirm') {
      answer.current?.(c === 'yes');
      answer.current = undefined;
      if (c === 'yes') setPhase({ kind: 'undoing', done: 0, total: 0 });
    } else if (c === 'back' && phase.kind !== 'undoing' && phase.kind !== 'checking') onClose();
  });
  const width = Math.max(40, size.columns);
  return <UndoPhaseView phase={phase} width={width} />;
}

/** The undo as it stands: checking (progress), the question, undoing (progress), what it did, or why it could not. */
function UndoPhaseView({ phase, width }: { phase: Phase; width: number }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {phase.kind === 'checking' ? (
        <TaskProgress label="checking the users the run made" done={phase.done} total={phase.total} width={width} />
      ) : null}
      {phase.kind === 'confirm' ? (
        <>
          {confirmationLines(phase.confirmation).map((line, i) => (
            <Text key={i} wrap="wrap" {...(i === 0 ? theme.error : {})}>
              {line}
            </Text>
          ))}
          {phase.notUndone > 0 ? (
            <Text wrap="wrap">{phase.notUndone} changes to present users cannot be undone from the journal</Text>
          ) : null}
          <Text>y undoes it, esc keeps everything</Text>
        </>
      ) : null}
      {phase.kind === 'undoing' ? <TaskProgress label="undoing" done={phase.done} total={phase.total} width={width} /> : null}
      {phase.kind === 'done' ? (
        <>
          <Text {...(phase.outcome.exitCode ? theme.error : theme.ok)} wrap="wrap">
            undone: {phase.outcome.summary!.removed + phase.outcome.summary!.undone} users, {phase.outcome.summary!.failed} failed
            {phase.outcome.summary!.failed > 0 ? ' (u again goes on)' : ''}
            {phase.outcome.decisions.kept > 0 ? `, ${phase.outcome.decisions.kept} changed since kept` : ''}; the journal is retired: the
            next run starts afresh
          </Text>
          {phase.outcome.summary!.failures.slice(0, 2).map((f, i) => (
            <Text key={i} wrap="wrap">
              {f}
            </Text>
          ))}
        </>
      ) : null}
      {phase.kind === 'error' ? (
        <Text {...theme.error} wrap="wrap">
          undo: {phase.message}
        </Text>
      ) : null}
    </Box>
  );
}
