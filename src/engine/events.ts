// Typed events of a migration run: the runner emits them and never prints; renderers draw them.
// Invariant: an event is data, drawn by a renderer (render/, the wizard); nothing in the engine prints.
import type { UserOutcome } from './journal/journal.js';

export interface Totals {
  total: number;
  imported: number;
  alreadyPresent: number;
  failed: number;
  skipped: number;
  /** Users found complete in the journal of an earlier run (counted in alreadyPresent). */
  resumed: number;
  /** `--update-existing`: users already in the core whose password hash the run replaced (counted in alreadyPresent). */
  replaced?: number;
}

export interface UserResult {
  /** Source id. */
  id: string;
  outcome: UserOutcome;
  /** For a failure: the step key that failed (`password`, `map`, `link:otp`, `totp:TOTP Device 0`, `plan`...). */
  step?: string;
  /** The core's status (`ACCOUNT_INFO_ALREADY_...`, `HTTP 400`) or the rule of an invalid record. */
  status?: string;
  message?: string;
  /** Steps done by this run, skipped thanks to the journal. */
  stepsRun: number;
  stepsFromJournal: number;
  /** Complete in the journal of an earlier run: nothing was sent for this user. */
  resumed?: boolean;
  /** The id the core knows the user by (the external id when mapped), when the run knows it. */
  userId?: string;
  /** `--update-existing`: the user was already in the core and its password hash was replaced by the source's. */
  replaced?: boolean;
}

export type RunEvent =
  | { type: 'run-started'; total: number; concurrency: number; journal: string; at: number }
  | { type: 'user-done'; result: UserResult; done: number; totals: Totals; at: number }
  /** The users migrated at once changed (adaptive-concurrency.ts): `limit` of at most `max`, and why. */
  | { type: 'concurrency'; limit: number; max: number; reason: string; at: number }
  /**
   * `--via steps`: how the run learns what the core holds (strategies/steps/knowledge.ts), decided by the core's users
   * (`coreUsers`, undefined when it did not say) against the run's: read in bulk (`listed`) or looked up per user.
   */
  | { type: 'core-knowledge'; listed: boolean; coreUsers?: number; runUsers: number; detail: string; at: number }
  | { type: 'retry'; method: string; path: string; attempt: number; delayMs: number; reason: string; at: number }
  /**
   * `--via bulk-staged`: the core's staging list (rows per status, every row) and its job (strategies/staged/job.ts): users
   * it has taken out of the list since the run began (`imported`, of `of` this run staged; read back at the end),
   * whether it runs now, its rate once it has run (users/s), an ETA only once there is a rate, when it starts next
   * (exact after a run it was seen ending; otherwise at most this far away), and how long nothing has moved.
   */
  | {
      type: 'staged-progress';
      staged: number;
      processing: number;
      failed: number;
      imported: number;
      of: number;
      running: boolean;
      rate?: number;
      etaMs?: number;
      nextRunInMs?: number;
      nextRunExact?: boolean;
      idleMs: number;
      intervalMs: number;
      at: number;
    }
  /** `--via bulk-staged`: nothing moved in the staging list for longer than `afterMs` (job.ts defaultStallAfterMs, or --stall-after). */
  | { type: 'staged-stalled'; idleMs: number; intervalMs: number; afterMs: number; waiting: number; at: number }
  /** `--via bulk-staged`: what the run does while it is not uploading (learning the core, reading back...). */
  | { type: 'staged-phase'; phase: 'learning' | 'uploading' | 'following' | 'reading-back' | 'reporting'; detail: string; at: number }
  /** `--via bulk-staged` stopping: rows of this run removed before the job claimed them, and those left to it. */
  | { type: 'staged-removed'; removed: number; left: number; at: number }
  | { type: 'paused'; at: number }
  | { type: 'resumed'; at: number }
  | { type: 'stopping'; reason: 'requested' | 'fatal'; message?: string; at: number }
  | { type: 'finished'; totals: Totals; durationMs: number; stopped?: 'requested' | 'fatal'; fatalMessage?: string; at: number };

export type RunEventListener = (event: RunEvent) => void;

export function emptyTotals(total: number): Totals {
  return { total, imported: 0, alreadyPresent: 0, failed: 0, skipped: 0, resumed: 0, replaced: 0 };
}

export function doneCount(t: Totals): number {
  return t.imported + t.alreadyPresent + t.failed + t.skipped;
}
