// The results screen's undo: the rollback operation (operations/rollback.ts) on this input's run, its journal found
// in the run folder (or under its retired name once an undo began), on the core the wizard is connected to.
import { identityId } from '../../engine/journal/journal.js';
import { findRetiredRunJournal } from '../../engine/rollback/retire.js';
import { findRunJournal } from '../../engine/run-folder.js';
import { rollbackMigration, type RollbackOperationEvent, type RollbackOutcome } from '../../operations/rollback.js';
import type { Confirmation } from '../../operations/confirm.js';
import type { RunRequest } from '../../operations/requests.js';
import { describeTarget } from '../../operations/target.js';
import { connectionTo } from './settings.js';
import type { TargetConnection } from './types.js';

export interface UndoOptions {
  onEvent(e: RollbackOperationEvent): void;
  confirm(c: Confirmation): Promise<boolean>;
  /** The journal to undo (a sync's: its own journal, not the first run's); default: this input's run. */
  journal?: string;
}

export async function undoRun(pending: Promise<RunRequest>, target: TargetConnection, o: UndoOptions): Promise<RollbackOutcome> {
  const s = await pending;
  const identity = { sources: s.files, target: describeTarget(s.target) };
  const journal =
    o.journal ?? (await findRunJournal(s.output.out, identity)) ?? (await findRetiredRunJournal(s.output.out, identityId(identity)));
  if (!journal) throw new Error(`no journal of this migration under ${s.output.out}: nothing to undo`);
  return rollbackMigration(
    { journal, target: s.target, force: false, concurrency: 8, confirmSandbox: true, by: 'the auth-migrate wizard (undo)', dryRun: false },
    { connect: async (_t, c) => connectionTo(target, s, c), confirm: o.confirm, onEvent: o.onEvent },
  );
}
