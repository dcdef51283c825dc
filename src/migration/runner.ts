// The migration engine, one for every `--via` path: it reads the validated records, settles those that need no
// write (invalid, left out by a policy, finished in the journal of an earlier run), and hands the rest to the
// path's strategy (runner-strategy.ts: steps, bulk, bulk-staged). What every path shares is written here once:
// the journal checked against the core before anything is skipped, pause and stop, totals, per-user results
// and events, and the stop on a core that fails every user. It emits events and never prints.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CoreClient } from '../core-client/types.js';
import { UserError } from '../errors.js';
import { formatProblem } from '../records/types.js';
import type { ValidatedRecord } from '../records/validate.js';
import { emptyTotals, doneCount, type RunEventListener, type Totals, type UserResult } from './events.js';
import type { Journal } from './journal.js';
import { checkJournalAgainstCore } from './journal-check.js';
import { redoesFinished, type PlanOptions } from './plan.js';
import { leftOutOfRun } from './disabled-check.js';
import type { Via } from './via.js';
import { migrationRun, PauseGate } from './pause-gate.js';
import type { Admitted, EngineContext, Strategy } from './runner-strategy.js';
import { finishOne, journalledUserId, migrateUserSteps, stepsStrategy } from './runner-steps.js';
import { bulkStrategy } from './bulk-user.js';
import { stagedStrategy } from './staged-strategy.js';
import { knownAbsentForSteps } from './bulk-knowledge.js';
import { createAdaptiveConcurrency } from './adaptive-concurrency.js';
import { fingerprintingJournal, type FingerprintOf } from './sync/journal-fingerprints.js';
import { writeAheadWindow } from './write-ahead-window.js';

/** A record after validation: the engine takes records/validate's ValidatedRecord as it is. */
export type { ValidatedRecord };
/** @deprecated the old name of ValidatedRecord (kept while the staged and runner-strategy files move to it). */
export type MigrationInput = ValidatedRecord;

export interface RunnerOptions {
  inputs: AsyncIterable<ValidatedRecord>;
  /**
   * The same records again, from the start (`--via bulk-staged` reads them a second time to report the users the
   * core's job imported, instead of holding a million of them in memory). Without it they are held.
   */
  reopenInputs?: () => AsyncIterable<ValidatedRecord>;
  /** Number of records (from the validation pass), for progress. */
  total: number;
  core: CoreClient;
  journal: Journal;
  plan?: PlanOptions;
  /** How users are written (via.ts); default `steps`. */
  via?: Via;
  /** Users migrated at the same time (default 16). */
  concurrency?: number;
  /** `bulk-staged`: users per upload (at most 10,000). */
  batchSize?: number;
  /** `bulk-staged`: the interval of the core's bulk-import job (the reference's: 300 s). */
  jobIntervalMs?: number;
  /** `bulk-staged`: how often the staging list is read while the job works (default 1 s while uploading, 250 ms after). */
  pollMs?: number;
  onEvent?: RunEventListener;
  /** Users failed in a row by HTTP 5xx answers (after retries) that stop the run as fatal (default 10). */
  maxServerErrorsInARow?: number;
  /** Called once per finished user, before its event (the caller writes the report and the failures file). */
  onUserResult?: (result: UserResult, input: ValidatedRecord) => void | Promise<void>;
  /**
   * `run --sync` (sync/strategy.ts): the strategy that takes the users, given the `--via` path's (which it hands
   * the users new to the core).
   */
  wrapStrategy?: (ctx: EngineContext, inner: Strategy) => Strategy;
  /** The fingerprint journalled for a finished user (default: its record's, sync/fingerprint.ts). */
  fingerprintOf?: FingerprintOf;
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
/** A batch being gathered gives the event loop back after this many records. */
const YIELD_EVERY = 500;

const asError = (err: unknown): Error => (err instanceof Error ? err : new UserError(String(err)));

/** A record that needs no write gets its result at once; any other is admitted for the strategy. */
async function admit(
  input: ValidatedRecord,
  journal: Journal,
  plan: PlanOptions,
  core: CoreClient,
  via: Via | undefined,
): Promise<UserResult | Admitted> {
  const base = { id: input.record.id, stepsRun: 0, stepsFromJournal: 0 };
  if (!input.valid) {
    const first = input.problems.find((p) => p.severity === 'error');
    return { ...base, outcome: 'skipped', status: first?.rule ?? 'invalid', message: first ? formatProblem(first) : 'invalid record' };
  }
  const journalled = journal.users.get(input.record.id);
  // A disabled user an earlier run (or anyone) put in the core is reported as still able to sign in (disabled-check.ts).
  const out = await leftOutOfRun(input.record, plan, journalled, core);
  if (out) return { ...base, outcome: 'skipped', status: out.status, message: out.message };
  const finished = journalled?.outcome === 'imported' || journalled?.outcome === 'alreadyPresent';
  // A setting of this run that adds to finished users (--update-existing, --disabled role:NAME): their steps again.
  if (finished && (via ?? 'steps') === 'steps' && redoesFinished(input.record, plan, journalled.steps)) return { input };
  if (finished) {
    const result: UserResult = {
      ...base,
      outcome: 'alreadyPresent',
      resumed: true,
      message: `completed by an earlier run (${journalled.outcome})`,
      stepsFromJournal: journalled.steps.size,
    };
    // The sign-in migration file names the core's id of such a user: rebuilt from the journal.
    if (input.record.legacyPassword) {
      const userId = journalledUserId(input.record, journalled.steps, plan);
      if (userId !== undefined) result.userId = userId;
    }
    return result;
  }
  return journalled ? { input, journalled } : { input };
}

export function startMigration(options: RunnerOptions): MigrationRun {
  const emit: RunEventListener = options.onEvent ?? (() => {});
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const plan = options.plan ?? {};
  const totals = emptyTotals(options.total);
  const started = Date.now();
  let stopped: RunSummary['stopped'];
  let fatal: Error | undefined;
  let serverErrorsInARow = 0;
  const maxServerErrorsInARow = options.maxServerErrorsInARow ?? 10;
  const pauses = new PauseGate(emit);
  const sleepers = new Set<() => void>();
  // Users at once: --concurrency at most, fewer while the core answers 5xx, resets or timeouts (adaptive-concurrency.ts).
  const limiter = createAdaptiveConcurrency({
    max: concurrency,
    onChange: (c) => emit({ type: 'concurrency', limit: c.limit, max: c.max, reason: c.reason, at: Date.now() }),
  });
  const unobserve = options.core.observe?.((answer) => limiter.answer(answer.trouble));
  /** `fn` holding one of the limiter's slots (released even when it throws). */
  const inSlot = async (fn: () => Promise<void>): Promise<void> => {
    await limiter.acquire();
    try {
      await fn();
    } finally {
      limiter.release();
    }
  };

  const requestStop = (reason: 'requested' | 'fatal', err?: Error): void => {
    if (stopped) return;
    stopped = reason;
    fatal = err;
    emit({ type: 'stopping', reason, message: err?.message, at: Date.now() });
    pauses.resume();
    limiter.close();
    for (const wake of sleepers) wake();
  };

  // Each finished user's line carries its fingerprint, for a later `run --sync` (sync/journal-fingerprints.ts).
  const fingerprints = fingerprintingJournal(options.journal, options.fingerprintOf);
  const finish = async (result: UserResult, input: ValidatedRecord): Promise<void> => {
    fingerprints.forget(input.record.id);
    if (result.outcome === 'imported') totals.imported += 1;
    else if (result.outcome === 'alreadyPresent') totals.alreadyPresent += 1;
    else if (result.outcome === 'failed') totals.failed += 1;
    else totals.skipped += 1;
    if (result.resumed) totals.resumed += 1;
    if (result.replaced) totals.replaced = (totals.replaced ?? 0) + 1;
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

  const ctx: EngineContext = {
    core: options.core,
    journal: fingerprints.journal,
    fingerprints,
    // The steps path skips the look-up of users known absent from the core, learnt in bulk (bulk-knowledge.ts).
    ...(options.via === undefined || options.via === 'steps' ? { knownAbsent: knownAbsentForSteps(options.core, options.total) } : {}),
    plan,
    concurrency,
    options,
    emit,
    finish,
    gate: () => pauses.gate,
    isStopping: () => stopped !== undefined,
    requestStop,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve();
        const wake = (): void => {
          clearTimeout(timer);
          sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        sleepers.add(wake);
      }),
    bySteps: (user) => finishOne(ctx, user, migrateUserSteps),
    async pooled(items, fn) {
      const it = items[Symbol.iterator]();
      const worker = async (): Promise<void> => {
        for (let next = it.next(); !next.done && !stopped; next = it.next()) await inSlot(() => fn(next.value));
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    },
  };

  const viaStrategy: Strategy =
    options.via === 'bulk-staged' ? stagedStrategy(ctx) : options.via === 'bulk' ? bulkStrategy(ctx) : stepsStrategy(ctx);
  const strategy = options.wrapStrategy ? options.wrapStrategy(ctx, viaStrategy) : viaStrategy;

  const iterator = options.inputs[Symbol.asyncIterator]();
  let ended = false;
  /** Up to `n` admitted users from the input; the others are finished on the way. */
  const nextUsers = async (n: number): Promise<Admitted[]> => {
    const users: Admitted[] = [];
    let read = 0;
    while (users.length < n && !ended && !stopped) {
      // A batch is gathered in promise callbacks only: let the sockets and files have the event loop now and then
      // (the batch before it waits to be written ahead and sent while this one is gathered).
      if (n > 1 && ++read % YIELD_EVERY === 0) await nextTurn();
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      const admitted = await admit(next.value, options.journal, plan, options.core, options.via);
      if ('input' in admitted) {
        fingerprints.admit(admitted.input);
        users.push(admitted);
      } else await finish(admitted, next.value);
    }
    return users;
  };

  // Per-user paths that write intents ahead take their users through a window of 16 x concurrency (at least 256).
  const window = Math.max(256, concurrency * 16);
  const takeOne =
    strategy.batchSize === 1 && strategy.writeAhead
      ? writeAheadWindow(nextUsers, (users) => strategy.writeAhead!(users), window, window / 2)
      : undefined;

  /** One user (or one batch) at a time; per-user paths hold a slot of the limiter for each user. */
  const worker = async (): Promise<void> => {
    const perUser = strategy.batchSize === 1;
    let more = true;
    while (more && !stopped) {
      const step = async (): Promise<void> => {
        await pauses.gate;
        if (stopped) return void (more = false);
        const users = takeOne ? await takeOne().then((u) => (u ? [u] : [])) : await nextUsers(strategy.batchSize);
        if (users.length === 0) return void (more = false);
        await strategy.take(users);
      };
      await (perUser ? inSlot(step) : step());
    }
  };

  const done = (async (): Promise<RunSummary> => {
    emit({ type: 'run-started', total: options.total, concurrency, journal: options.journal.path, at: started });
    // A source that fails mid-stream (or a bug) stops the others cleanly; what is journalled stays.
    const guarded = () => worker().catch((err: unknown) => requestStop('fatal', asError(err)));
    try {
      // Every path: a journal that says users are done must belong to this core (not a reset one at its URL).
      const stale = await checkJournalAgainstCore(options.journal, options.core);
      if (stale) requestStop('fatal', stale);
      else await strategy.prepare?.();
    } catch (err) {
      requestStop('fatal', asError(err));
    }
    const workers = strategy.batchSize === 1 ? concurrency : 1;
    await Promise.all(Array.from({ length: workers }, guarded));
    try {
      if (!stopped) await strategy.drain?.();
    } catch (err) {
      requestStop('fatal', asError(err));
    }
    unobserve?.();
    if (stopped) await strategy.abandon?.().catch(() => undefined); // the next run finds what is left
    // Stopped early: close the source files now rather than when the process ends (the wizard lives on).
    await iterator.return?.(undefined).catch(() => undefined);
    await options.journal.flush();
    const durationMs = Date.now() - started;
    emit({ type: 'finished', totals: { ...totals }, durationMs, stopped, fatalMessage: fatal?.message, at: Date.now() });
    return { totals: { ...totals }, durationMs, stopped, fatal };
  })();

  return migrationRun(
    done,
    pauses,
    () => stopped !== undefined,
    () => requestStop('requested'),
  );
}
