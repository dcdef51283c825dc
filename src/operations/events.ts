// What an operation tells its shell: typed events (the shells only draw them) and typed refusals (what stopped
// it before any write, with the fix). The CLI turns them into lines, the wizard into screens; neither decides.
// Invariant: a refusal is told before any write, with its fix.
import type { PreflightFinding } from '../core-client/preflight.js';
import { UserError } from '../errors.js';
import type { RunEvent } from '../engine/events.js';
import type { ValidationSummary } from '../records/validate.js';
import type { Confirmation } from './confirm.js';
import type { ClassLoss } from './partial.js';

export type RefusalCode = 'partial' | 'preflight' | 'not-confirmed' | 'nothing-to-do' | 'no-journal';

/** An operation refused to go on: nothing was written. `fix` says what to do (in words both shells can show). */
export class Refusal extends UserError {
  constructor(
    readonly code: RefusalCode,
    message: string,
    readonly fix?: string,
  ) {
    super(message, 2);
    this.name = 'Refusal';
  }
}

/** The phases every operation shares, before its own work. */
export type CommonEvent =
  | { type: 'validated'; summary: ValidationSummary; unreadable: number }
  /** Whole classes of users the sources would lose for a missing setting; `allowed`: going on knowingly. */
  | { type: 'partial'; losses: ClassLoss[]; allowed: boolean }
  | { type: 'sandbox'; url: string; store: string }
  | { type: 'preflight'; findings: PreflightFinding[]; scryptAlgorithmName?: string; learnt: boolean }
  /** Asked before a real core is written or emptied; the shell answers through its confirm(). */
  | { type: 'confirm'; confirmation: Confirmation }
  | { type: 'refused'; code: RefusalCode; message: string; fix?: string };

export type RunOperationEvent =
  | CommonEvent
  /** Right before the first write: where the run's files go, and what an earlier run of it already did. */
  | {
      type: 'run-folder';
      /** The core written to (the sandbox's URL when it is one), its app and tenant. */
      url: string;
      app: string;
      tenant: string;
      folder?: string;
      journal: string;
      carriedOn: boolean;
      /** Users the journal of an earlier run already finished (they are not sent again). */
      fromJournal: number;
      /** The git work tree the folder is in (its files hold emails and ids): the folder ignores itself there. */
      gitTree?: string;
    }
  | RunEvent;

export type RunEventOf<T extends RunOperationEvent['type']> = Extract<RunOperationEvent, { type: T }>;
