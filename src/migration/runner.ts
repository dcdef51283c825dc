// Runs the migration: users in parallel (bounded), each user's steps in order, every completed step journalled.
// It emits events and never prints; pause(), resume() and stop() serve the wizard and the signal handlers.
import type { CoreClient } from '../core-client/types.js';
import { CoreClientError } from '../core-client/errors.js';
import { UserError } from '../errors.js';
import type { CanonicalUser, Problem, RecordOrigin } from '../records/types.js';
import { formatProblem } from '../records/types.js';
import { emptyTotals, doneCount, type RunEventListener, type Totals, type UserResult } from './events.js';
import { applyStepIds, executeStep, newUserIds, resolveRef } from './execute.js';
import type { Journal, JournalledSteps } from './journal.js';
import { checkJournalAgainstCore } from './journal-check.js';
import { leftOut, planUserSteps, PlanError, type PlanOptions } from './plan.js';
import { migrateBulkUser } from './bulk-user.js';
import type { Via } from './via.js';
import { migrationRun, PauseGate } from './pause-gate.js';
import { createAdaptiveConcurrency } from './adaptive-concurrency.js';

/** A record after validation (the shape of records/validate's ValidatedRecord). */
export interface MigrationInput {
  record: CanonicalUser;
  origin: RecordOrigin;
  problems: Problem[];
  valid: boolean;
}

export interface RunnerOptions {
  inputs: AsyncIterable<MigrationInput>;
  /** Number of records (from the validation pass), for progress. */
  total: number;
  core: CoreClient;
  journal: Journal;
  plan?: PlanOptions;
  /** How each user is written: `steps` (the default, per-user endpoints) or `bulk` (POST /bulk-import/import). */
  via?: Exclude<Via, 'bulk-staged'>;
  /** Users migrated at the same time (default 16). */
  concurrency?: number;
  onEvent?: RunEventListener;
  /** Users failed in a row by HTTP 5xx answers (after retries) that stop the run as fatal (default 10). */
  maxServerErrorsInARow?: number;
  /** Called once per finished user, before its event (the caller writes the report and the failures file). */
  onUserResult?: (result: UserResult, input: MigrationInput) => void | Promise<void>;
}

export interface RunSummary {
  totals: Totals;
  durationMs: number;
  /** Why the run ended early, if it did; the journal makes it resumable. */
  stopped?: 'requested' | 'fatal';
  /** The error that stopped the run (401, 402, unreachable core...). */
  fatal?: Error;
}

export interface MigrationRun {
  readonly done: Promise<RunSummary>;
  pause(): void;
  resume(): void;
  /** Stop taking new users; in-flight steps end; the journal is flushed. */
  stop(): void;
  readonly paused: boolean;
}

export const DEFAULT_CONCURRENCY = 16;

/** The core's id of a user the journal holds complete: its steps replayed for their ids. */
function journalledUserId(record: CanonicalUser, journalSteps: JournalledSteps, plan: PlanOptions | undefined): string | undefined {
  try {
    const steps = planUserSteps(record, plan);
    const map = steps.find((s) => s.kind === 'map-user-id');
    if (map?.kind === 'map-user-id') return map.externalUserId;
    return journalSteps.get(steps[0]!.key)?.ids.recipeUserId;
  } catch {
    return undefined;
  }
}

export function startMigration(options: RunnerOptions): MigrationRun {
  const emit: RunEventListener = options.onEvent ?? (() => {});
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const totals = emptyTotals(options.total);
  const started = Date.now();
  let stopped: RunSummary['stopped'];
  let fatal: Error | undefined;
  let serverErrorsInARow = 0;
  const maxServerErrorsInARow = options.maxServerErrorsInARow ?? 10;
  const pauses = new PauseGate(emit);
  // Users at once: --concurrency at most, fewer while the core answers 5xx, resets or timeouts (adaptive-concurrency.ts).
  const limiter = createAdaptiveConcurrency({
    max: concurrency,
    onChange: (c) => emit({ type: 'concurrency', limit: c.limit, max: c.max, reason: c.reason, at: Date.now() }),
  });
  const unobserve = options.core.observe?.((answer) => limiter.answer(answer.trouble));

  const requestStop = (reason: 'requested' | 'fatal', err?: Error): void => {
    if (stopped) return;
    stopped = reason;
    fatal = err;
    emit({ type: 'stopping', reason, message: err?.message, at: Date.now() });
    pauses.resume();
    limiter.close();
  };

  const migrateUser = async (input: MigrationInput): Promise<UserResult | undefined> => {
    const id = input.record.id;
    const base = { id, stepsRun: 0, stepsFromJournal: 0 };
    if (!input.valid) {
      const first = input.problems.find((p) => p.severity === 'error');
      return { ...base, outcome: 'skipped', status: first?.rule ?? 'invalid', message: first ? formatProblem(first) : 'invalid record' };
    }
    const out = leftOut(input.record, options.plan ?? {});
    if (out) return { ...base, outcome: 'skipped', status: out.status, message: out.message };
    const journalled = options.journal.users.get(id);
    if (journalled?.outcome === 'imported' || journalled?.outcome === 'alreadyPresent') {
      const result: UserResult = {
        ...base,
        outcome: 'alreadyPresent',
        resumed: true,
        message: `completed by an earlier run (${journalled.outcome})`,
        stepsFromJournal: journalled.steps.size,
      };
      // The sign-in migration file names the core's id of such a user: rebuilt from the journal.
      if (input.record.legacyPassword) {
        const userId = journalledUserId(input.record, journalled.steps, options.plan);
        if (userId !== undefined) result.userId = userId;
      }
      return result;
    }
    if (options.via === 'bulk') {
      await pauses.gate;
      if (stopped) return undefined;
      try {
        return await migrateBulkUser(input.record, options.core, options.journal, options.plan ?? {}, journalled);
      } catch (err) {
        if (err instanceof CoreClientError && err.fatal) {
          requestStop('fatal', err);
          return undefined;
        }
        throw err;
      }
    }
    let steps;
    try {
      steps = planUserSteps(input.record, options.plan);
    } catch (err) {
      if (err instanceof PlanError) return { ...base, outcome: 'failed', step: 'plan', status: 'PLAN_ERROR', message: err.message };
      throw err;
    }
    const ids = newUserIds();
    let created = false;
    let stepsRun = 0;
    let fromJournal = 0;
    for (const step of steps) {
      const prev = journalled?.steps.get(step.key);
      if (prev) {
        applyStepIds(step, prev.ids, ids);
        created ||= prev.result === 'created';
        fromJournal += 1;
        continue;
      }
      await pauses.gate;
      if (stopped) return undefined; // interrupted between steps: the journal resumes it
      let out;
      try {
        out = await executeStep(step, ids, options.core);
      } catch (err) {
        if (err instanceof CoreClientError && err.fatal) {
          requestStop('fatal', err);
          return undefined;
        }
        throw err;
      }
      stepsRun += 1;
      if (!out.ok) {
        options.journal.append({ type: 'user', user: id, outcome: 'failed', step: step.key, status: out.status });
        return {
          ...base,
          outcome: 'failed',
          step: step.key,
          status: out.status,
          message: out.message,
          stepsRun,
          stepsFromJournal: fromJournal,
        };
      }
      applyStepIds(step, out.ids, ids);
      options.journal.append({ type: 'step', user: id, step: step.key, result: out.result, ids: out.ids });
      created ||= out.result === 'created';
    }
    const outcome = created ? 'imported' : 'alreadyPresent';
    options.journal.append({ type: 'user', user: id, outcome });
    return { ...base, outcome, stepsRun, stepsFromJournal: fromJournal, userId: resolveRef(ids, steps[0]!.key) };
  };

  const record = async (result: UserResult, input: MigrationInput): Promise<void> => {
    if (result.outcome === 'imported') totals.imported += 1;
    else if (result.outcome === 'alreadyPresent') totals.alreadyPresent += 1;
    else if (result.outcome === 'failed') totals.failed += 1;
    else totals.skipped += 1;
    if (result.resumed) totals.resumed += 1;
    await options.onUserResult?.(result, input);
    emit({ type: 'user-done', result, done: doneCount(totals), totals: { ...totals }, at: Date.now() });
    // A core that fails every user with a server error (after the client's retries) is broken, not the data.
    if (result.outcome === 'failed' && result.status?.startsWith('HTTP 5')) serverErrorsInARow += 1;
    else if (result.outcome === 'imported' || result.outcome === 'alreadyPresent') serverErrorsInARow = 0;
    if (serverErrorsInARow >= maxServerErrorsInARow) {
      requestStop(
        'fatal',
        new UserError(
          `the core answered ${result.status} to ${serverErrorsInARow} users in a row (last: ${result.message ?? ''}); ` +
            'stopping: check the core, then rerun the same command to resume',
        ),
      );
    }
  };

  const iterator = options.inputs[Symbol.asyncIterator]();
  const worker = async (): Promise<void> => {
    while (!stopped) {
      await limiter.acquire();
      try {
        await pauses.gate;
        if (stopped) break;
        const next = await iterator.next();
        if (next.done) break;
        const result = await migrateUser(next.value);
        if (result) await record(result, next.value);
      } finally {
        limiter.release();
      }
    }
  };

  const done = (async (): Promise<RunSummary> => {
    emit({ type: 'run-started', total: options.total, concurrency, journal: options.journal.path, at: started });
    // A source that fails mid-stream (or a bug) stops the others cleanly; what is journalled stays.
    const guarded = () => worker().catch((err: unknown) => requestStop('fatal', err instanceof Error ? err : new UserError(String(err))));
    try {
      const stale = await checkJournalAgainstCore(options.journal, options.core);
      if (stale) requestStop('fatal', stale);
    } catch (err) {
      requestStop('fatal', err instanceof Error ? err : new UserError(String(err)));
    }
    await Promise.all(Array.from({ length: concurrency }, guarded));
    unobserve?.();
    // Stopped early: close the source files now rather than when the process ends (the wizard lives on).
    await iterator.return?.(undefined).catch(() => undefined);
    await options.journal.flush();
    const durationMs = Date.now() - started;
    emit({ type: 'finished', totals: { ...totals }, durationMs, stopped, fatalMessage: fatal?.message, at: Date.now() });
    return { totals: { ...totals }, durationMs, stopped, fatal };
  })();

  const run = migrationRun(
    done,
    pauses,
    () => stopped !== undefined,
    () => requestStop('requested'),
  );
  return run;
}
