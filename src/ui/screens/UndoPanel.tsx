// The results screen's undo: u counts what `auth-migrate rollback` would take back out of the core (users this
// run created, and what it added to users already there), y confirms, esc cancels. Users present before are kept.
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import type { RollbackOutcome } from '../services/types.js';
import { theme } from '../theme.js';

type Phase =
  | { kind: 'counting' }
  | { kind: 'confirm'; plan: RollbackOutcome }
  | { kind: 'running'; done?: number; total?: number }
  | { kind: 'done'; outcome: RollbackOutcome }
  | { kind: 'error'; message: string };

export const UNDO_HELP = 'y undo it · esc cancel';

export function UndoPanel({ onClose }: { onClose: () => void }) {
  const { actions } = useWizard();
  const [phase, setPhase] = useState<Phase>({ kind: 'counting' });
  useEffect(() => {
    let live = true;
    void actions
      .rollback(true)
      .then((r) => live && setPhase(typeof r === 'string' ? { kind: 'error', message: r } : { kind: 'confirm', plan: r }));
    return () => {
      live = false;
    };
  }, [actions]);
  useKeys(['yes', 'back'], (c) => {
    if (c === 'back') {
      if (phase.kind !== 'running') onClose();
    } else if (phase.kind === 'confirm') {
      setPhase({ kind: 'running' });
      void actions
        .rollback(false, (p) => setPhase({ kind: 'running', done: p.done, total: p.total }))
        .then((r) => setPhase(typeof r === 'string' ? { kind: 'error', message: r } : { kind: 'done', outcome: r }));
    }
  });
  return (
    <Box flexDirection="column" marginTop={1}>
      {phase.kind === 'counting' ? <Text {...theme.muted}>reading the journal…</Text> : null}
      {phase.kind === 'confirm' ? (
        <>
          <Text {...theme.error} wrap="wrap">
            undo this run: {phase.plan.actions} changes for {phase.plan.users} users (the users it created are removed; users that were
            there before keep what they had)
          </Text>
          {phase.plan.kept.length > 0 ? (
            <Text wrap="wrap">{phase.plan.kept.length} users changed since the run stay as they are (a login, device or email added)</Text>
          ) : null}
          {phase.plan.notUndone.length > 0 ? (
            <Text wrap="wrap">{phase.plan.notUndone.length} changes to present users cannot be undone from the journal (listed after)</Text>
          ) : null}
          <Text>y undoes it, esc keeps everything</Text>
        </>
      ) : null}
      {phase.kind === 'running' ? (
        <Text {...theme.muted}>undoing…{phase.total !== undefined ? ` ${phase.done ?? 0} of ${phase.total} users` : ''}</Text>
      ) : null}
      {phase.kind === 'done' ? (
        <>
          <Text {...(phase.outcome.failed.length ? theme.error : theme.ok)}>
            undone: {phase.outcome.performed} users, {phase.outcome.failed.length} failed (rerun u to go on)
            {phase.outcome.kept.length > 0 ? `, ${phase.outcome.kept.length} changed since kept` : ''}; log {phase.outcome.log}
          </Text>
          {phase.outcome.failed.slice(0, 2).map((f, i) => (
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
