// The migration engine's parts (runner.ts startMigration runs them): the run's state (totals, stop, pause, the
// limiter of users at once), the context a strategy works through (strategy.ts EngineContext), the intake that
// admits records and finishes those that need no write, the workers, and the run from the journal check to the
// last flush. One engine for every `--via` path. Invariant: no user is settled from the journal before the journal
// was checked against the core, and the journal is flushed before the run's end (`finished`) is told.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CoreClient } from '../core-client/types.js';
import { asError, UserError } from '../errors.js';
import { formatProblem } from '../records/types.js';
import { createAdaptiveConcurrency, type AdaptiveConcurrency } from './pace/adaptive-concurrency.js';
import { leftOutOfRun } from './plan/disabled-check.js';
import { doneCount, emptyTotals, type RunEventListener, type Totals, type UserResult } from './events.js';
import type { Journal } from './journal/journal.js';
import { checkJournalAgainstCore } from './journal/check.js';
import { PauseGate } from './pace/pause-gate.js';
import { RecentLongest } from './pace/answer-times.js';
import { redoesFinished, type PlanOptions } from './plan/plan.js';
import type { ValidatedRecord, RunnerOptions, RunSummary } from './runner.js';
import { finishOne, journalledUserId, migrateUserSteps } from './strategies/steps/strategy.js';
import type { Admitted, EngineContext, Strategy } from './strategy.js';
import { fingerprintingJournal, type FingerprintingJournal } from './journal/fingerprints.js';
import { writeAheadWindow } from './strategies/steps/write-ahead-window.js';

export const DEFAULT_CONCURRENCY = 16;
/** A batch being gathered gives the event loop back after this many records. */
const YIELD_EVERY = 500;

/** A record that needs no write gets its result at once; any other is admitted for the strategy. */
export async function admit(
  input: ValidatedRecord,
  journal: Journal,
  plan: PlanOptions,
  core: CoreClient,
  retakesFinished: boolean,
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
  if (finished && retakesFinished && redoesFinished(input.record, plan, journalled.steps)) return { input };
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

/** One run's engine: its state, and the methods startMigration (runner.ts) runs. */
export class MigrationEngine {
  readonly emit: RunEventListener;
  readonly concurrency: number;
  readonly plan: PlanOptions;
  readonly totals: Totals;
  readonly started = Date.now();
  readonly pauses: PauseGate;
  stopped: RunSummary['stopped'];
  private fatal: Error | undefined;
  private serverErrorsInARow = 0;
  private readonly sleepers = new Set<() => void>();
  /** Users at once: --concurrency at most, fewer while the core answers 5xx, resets or timeouts (adaptive-concurrency.ts). */
  private readonly limiter: AdaptiveConcurrency;
  private readonly unobserve: (() => void) | undefined;
  /** How long the core took to answer lately (the steps path's commit margin, strategies/steps/knowledge.ts). */
  private readonly answers = new RecentLongest();
  /** Each finished user's line carries its fingerprint, for a later `run --sync` (journal/fingerprints.ts). */
  private readonly fingerprints: FingerprintingJournal;
  private readonly iterator: AsyncIterator<ValidatedRecord>;
  private ended = false;
  readonly ctx: EngineContext;
  private readonly strategy: Strategy;
  private takeOne: (() => Promise<Admitted | undefined>) | undefined;

  constructor(private readonly options: RunnerOptions) {
    this.emit = options.onEvent ?? (() => {});
    this.concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    this.plan = options.plan ?? {};
    this.totals = emptyTotals(options.total);
    this.pauses = new PauseGate(this.emit);
    this.limiter = createAdaptiveConcurrency({
      max: this.concurrency,
      onChange: (c) => this.emit({ type: 'concurrency', limit: c.limit, max: c.max, reason: c.reason, at: Date.now() }),
    });
    this.unobserve = options.core.observe?.((answer) => {
      this.limiter.answer(answer.trouble);
      this.answers.add(answer.ms);
    });
    this.fingerprints = fingerprintingJournal(options.journal, options.fingerprintOf);
    this.iterator = options.inputs[Symbol.asyncIterator]();
    this.ctx = this.context();
    this.strategy = options.strategy(this.ctx);
    // Per-user paths that write intents ahead take their users through a window of 16 x concurrency (at least 256).
    const window = Math.max(256, this.concurrency * 16);
    if (this.strategy.batchSize === 1 && this.strategy.writeAhead) {
      const writeAhead = this.strategy.writeAhead.bind(this.strategy);
      this.takeOne = writeAheadWindow((n) => this.nextUsers(n), writeAhead, window, window / 2);
    }
  }

  requestStop(reason: 'requested' | 'fatal', err?: Error): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.fatal = err;
    this.emit({ type: 'stopping', reason, message: err?.message, at: Date.now() });
    this.pauses.resume();
    this.limiter.close();
    for (const wake of this.sleepers) wake();
  }

  /** `fn` holding one of the limiter's slots (released even when it throws). */
  private async inSlot(fn: () => Promise<void>): Promise<void> {
    await this.limiter.acquire();
    try {
      await fn();
    } finally {
      this.limiter.release();
    }
  }

  /** A user's final result: totals, the caller's files, the event; a core failing every user stops the run. */
  async finish(result: UserResult, input: ValidatedRecord): Promise<void> {
    const totals = this.totals;
    this.fingerprints.forget(input.record.id);
    if (result.outcome === 'imported') totals.imported += 1;
    else if (result.outcome === 'alreadyPresent') totals.alreadyPresent += 1;
    else if (result.outcome === 'failed') totals.failed += 1;
    else totals.skipped += 1;
    if (result.resumed) totals.resumed += 1;
    if (result.replaced) totals.replaced = (totals.replaced ?? 0) + 1;
    await this.options.onUserResult?.(result, input);
    this.emit({ type: 'user-done', result, done: doneCount(totals), totals: { ...totals }, at: Date.now() });
    // A core that fails every user with a server error (after the client's retries) is broken, not the data.
    if (result.outcome === 'failed' && result.status?.startsWith('HTTP 5')) this.serverErrorsInARow += 1;
    else if (result.outcome === 'imported' || result.outcome === 'alreadyPresent') this.serverErrorsInARow = 0;
    if (this.serverErrorsInARow >= (this.options.maxServerErrorsInARow ?? 10)) {
      this.requestStop(
        'fatal',
        new UserError(
          `the core answered ${result.status} to ${this.serverErrorsInARow} users in a row (last: ${result.message ?? ''}); ` +
            'stopping: check the core, then rerun the same command to resume',
        ),
      );
    }
  }

  /** Waits `ms`, or less when the run is asked to stop. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.stopped) return resolve();
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  private context(): EngineContext {
    const options = this.options;
    const ctx: EngineContext = {
      core: options.core,
      journal: this.fingerprints.journal,
      fingerprints: this.fingerprints,
      plan: this.plan,
      total: options.total,
      emit: this.emit,
      finish: (result, input) => this.finish(result, input),
      gate: () => this.pauses.gate,
      isStopping: () => this.stopped !== undefined,
      requestStop: (reason, err) => this.requestStop(reason, err),
      sleep: (ms) => this.sleep(ms),
      longestAnswerMs: () => this.answers.longest(),
      bySteps: (user) => finishOne(ctx, user, migrateUserSteps),
      pooled: async (items, fn) => {
        const it = items[Symbol.iterator]();
        const worker = async (): Promise<void> => {
          for (let next = it.next(); !next.done && !this.stopped; next = it.next()) await this.inSlot(() => fn(next.value));
        };
        await Promise.all(Array.from({ length: this.concurrency }, worker));
      },
    };
    return ctx;
  }

  /** Up to `n` admitted users from the input; the others are finished on the way. */
  async nextUsers(n: number): Promise<Admitted[]> {
    const users: Admitted[] = [];
    let read = 0;
    while (users.length < n && !this.ended && !this.stopped) {
      // A batch is gathered in promise callbacks only: let the sockets and files have the event loop now and then
      // (the batch before it waits to be written ahead and sent while this one is gathered).
      if (n > 1 && ++read % YIELD_EVERY === 0) await nextTurn();
      const next = await this.iterator.next();
      if (next.done) {
        this.ended = true;
        break;
      }
      const admitted = await admit(next.value, this.options.journal, this.plan, this.options.core, this.strategy.retakesFinished === true);
      if ('input' in admitted) {
        this.fingerprints.admit(admitted.input);
        users.push(admitted);
      } else await this.finish(admitted, next.value);
    }
    return users;
  }

  /** One user (or one batch) at a time; per-user paths hold a slot of the limiter for each user. */
  private async worker(): Promise<void> {
    const perUser = this.strategy.batchSize === 1;
    let more = true;
    const step = async (): Promise<void> => {
      await this.pauses.gate;
      if (this.stopped) return void (more = false);
      const users = this.takeOne ? await this.takeOne().then((u) => (u ? [u] : [])) : await this.nextUsers(this.strategy.batchSize);
      if (users.length === 0) return void (more = false);
      await this.strategy.take(users);
    };
    while (more && !this.stopped) await (perUser ? this.inSlot(step) : step());
  }

  /** The whole run: the journal checked against the core, the workers, the strategy's drain, the last flush. */
  async run(): Promise<RunSummary> {
    const { options, emit, strategy } = this;
    emit({ type: 'run-started', total: options.total, concurrency: this.concurrency, journal: options.journal.path, at: this.started });
    // A source that fails mid-stream (or a bug) stops the others cleanly; what is journalled stays.
    const guarded = () => this.worker().catch((err: unknown) => this.requestStop('fatal', asError(err)));
    try {
      // Every path: a journal that says users are done must belong to this core (not a reset one at its URL).
      const stale = await checkJournalAgainstCore(options.journal, options.core);
      if (stale) this.requestStop('fatal', stale);
      else await strategy.prepare?.();
    } catch (err) {
      this.requestStop('fatal', asError(err));
    }
    const workers = strategy.batchSize === 1 ? this.concurrency : 1;
    await Promise.all(Array.from({ length: workers }, guarded));
    try {
      if (!this.stopped) await strategy.drain?.();
    } catch (err) {
      this.requestStop('fatal', asError(err));
    }
    this.unobserve?.();
    if (this.stopped) await strategy.abandon?.().catch(() => undefined); // the next run finds what is left
    // Stopped early: close the source files now rather than when the process ends (the wizard lives on).
    await this.iterator.return?.(undefined).catch(() => undefined);
    await options.journal.flush();
    const totals = { ...this.totals };
    const durationMs = Date.now() - this.started;
    emit({ type: 'finished', totals, durationMs, stopped: this.stopped, fatalMessage: this.fatal?.message, at: Date.now() });
    return { totals: { ...totals }, durationMs, stopped: this.stopped, fatal: this.fatal };
  }
}
