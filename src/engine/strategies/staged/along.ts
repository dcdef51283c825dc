// `--via bulk-staged`, the results written along with the core's job: each user read back as imported
// (early.ts) gets its result and journal lines while the job imports later batches. Past 25,000 records the
// records are not kept: the source is read a second time, in order, as far as the users read back at least once.
// Each batch the run took is marked with its last record once its upload was answered; the second read goes no
// further than the marked batches (a user not in the table there was not staged), and waits at a staged user until
// every user staged up to it was read back (`readTo`, in table order). A user the reads did not settle yet (its
// row was imported after the read, the job failed it, it is in the core otherwise) is kept aside, up to a bound,
// and looked at again after each read; once the final read-back is done (final()), the kept ones and the rest of
// the source get their results as reportStaged gives them. Past the bound (a job that fails many users), the
// second read stops, and the full pass at the end (reportStaged) writes every user not reported yet.
// A run that keeps its records (a small run, or a source that cannot be read again: run-state.ts) writes the
// results of its confirmed users in table order instead, as far as `readTo`.
// Invariant: each user's result is written once, and never before the user was read back (or the run is final).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Admitted, EngineContext } from '../../strategy.js';
import type { ValidatedRecord } from '../../runner.js';
import { leftOut } from '../../plan/plan.js';
import { settledResult, type StagedPlanner } from './results.js';
import { CONFIRMED, EXISTS, PRESENT, REPORTED, type StagedTable } from './table.js';

/** Users kept aside (their records) before the second read gives up to the full pass at the end (~1.5 kB each). */
const KEPT_ASIDE_MAX = 10_000;
/** The journal is waited for every so many results (it queues lines without a limit). */
const JOURNAL_EVERY = 5_000;
/** Records read again between two full collections (the second read makes garbage fast: heap.ts). */
const GC_EVERY = 5_000;
/** Users completed by the steps at once, once the run is final. */
const STEPS_BUFFER = 256;
/** Results between two turns of the event loop (the core's answers are let in). */
const YIELD_EVERY = 250;

export class ResultsAlong {
  private readonly marks: string[] = [];
  private readTo = 0;
  private isFinal = false;
  private wake: (() => void) | undefined;
  private aside: ValidatedRecord[] = [];
  /** `readTo` when the users kept aside were last looked at. */
  private asideAt = 0;
  private steps: Admitted[] = [];
  private written = 0;
  private running: Promise<void> | undefined;
  /** The second read gave up (too many users kept aside): the full pass at the end writes what is left. */
  overflowed = false;
  /** Results written while the core worked (before final()). */
  writtenMeanwhile = 0;

  constructor(
    private readonly ctx: EngineContext,
    private readonly table: StagedTable,
    private readonly planOf: StagedPlanner,
    private readonly collect: () => void,
    private readonly reopenInputs: (() => AsyncIterable<ValidatedRecord>) | undefined,
  ) {}

  /** A batch was taken and its upload answered (its users are in the table): its last record. */
  batchTaken(lastId: string): void {
    this.marks.push(lastId);
    this.poke();
  }

  /** Every user below table index `n` has been read back at least once. */
  readBackTo(n: number): void {
    if (n <= this.readTo) return;
    this.readTo = n;
    this.running ??= this.run().catch((err: unknown) => {
      this.overflowed = true; // the full pass at the end writes what is left, and meets the error again if it lasts
      throw err;
    });
    this.running.catch(() => undefined); // its error reaches whoever waits with final()
    this.poke();
  }

  /** The final read-back is done: everything left gets its result. True when the full pass is still needed. */
  async final(): Promise<boolean> {
    this.isFinal = true;
    this.readTo = Infinity;
    this.running ??= this.run();
    this.poke();
    await this.running;
    return this.overflowed || this.ctx.isStopping();
  }

  /** Stopping: the second read waits no more. */
  async stop(): Promise<void> {
    this.overflowed = true;
    this.poke();
    await this.running?.catch(() => undefined);
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private async waitForPoke(): Promise<void> {
    await new Promise<void>((resolve) => (this.wake = resolve));
  }

  private async run(): Promise<void> {
    if (this.table.inputs) return this.runKept(this.table.inputs);
    const source = this.reopenInputs?.();
    if (!source) return;
    let read = 0;
    const waits = () => !this.isFinal && !this.overflowed && !this.ctx.isStopping();
    for await (const input of source) {
      if (++read % GC_EVERY === 0) this.collect();
      // Not past the batches whose uploads are answered: a user not in the table then was not staged.
      while (waits() && !this.marks[0]) await this.waitForPoke();
      if (this.overflowed || this.ctx.isStopping()) return;
      await this.recheckAside();
      // A staged user not read back yet (its table index at or past `readTo`) is waited for.
      while (input && (await this.one(input, false)) === 'wait') {
        await this.waitForPoke();
        if (this.overflowed || this.ctx.isStopping()) return;
        await this.recheckAside();
      }
      if (input && input.record.id === this.marks[0]) this.marks.shift();
    }
    this.marks.length = 0;
    await this.recheckAside();
    await this.runSteps();
  }

  /** Kept records: the confirmed users in table order, as far as `readTo`; the full pass writes the others. */
  private async runKept(inputs: Array<ValidatedRecord | undefined>): Promise<void> {
    for (let i = 0; ; i++) {
      while (i >= Math.min(this.readTo, this.table.size) && !this.isFinal && !this.overflowed && !this.ctx.isStopping())
        await this.waitForPoke();
      if (i >= this.table.size || this.isFinal || this.overflowed || this.ctx.isStopping()) {
        this.overflowed = true; // the full pass over the kept records writes the rest
        return;
      }
      const input = inputs[i];
      if (input && this.table.state[i] === CONFIRMED) await this.one(input, false);
    }
  }

  /**
   * A user read again: its result when it is settled (or the run is final); 'wait' when it is staged and not read
   * back yet; else kept aside ('aside').
   */
  private async one(input: ValidatedRecord, fromAside: boolean): Promise<'done' | 'aside' | 'wait'> {
    const { ctx, table } = this;
    if (!fromAside && (!input.valid || leftOut(input.record, ctx.plan))) return 'done';
    const journalled = ctx.journal.users.get(input.record.id);
    if (journalled?.outcome === 'imported' || journalled?.outcome === 'alreadyPresent') return 'done'; // settled before
    const user: Admitted = journalled ? { input, journalled } : { input };
    const planned = this.planOf(user);
    const i = planned && table.find(planned.key);
    if (!planned || i === undefined || table.state[i] === REPORTED) return 'done'; // settled during the upload
    const state = table.state[i]!;
    if (state !== CONFIRMED && !this.isFinal) {
      if (!fromAside && i >= this.readTo) return 'wait';
      if (!fromAside) this.keepAside(input);
      return 'aside';
    }
    table.setState(i, REPORTED);
    ctx.fingerprints.admit(input); // for its finishing line (let go of while the job worked)
    if (state === PRESENT || state === EXISTS) {
      this.steps.push(user);
      if (this.steps.length >= STEPS_BUFFER) await this.runSteps();
      return 'done';
    }
    await ctx.finish(settledResult(ctx, table, i, state, input, planned), input);
    if (!this.isFinal) this.writtenMeanwhile++;
    if (++this.written % YIELD_EVERY === 0) await nextTurn();
    if (this.written % JOURNAL_EVERY === 0) await ctx.journal.flush();
    return 'done';
  }

  private keepAside(input: ValidatedRecord): void {
    if (this.aside.length >= KEPT_ASIDE_MAX) {
      this.overflowed = true;
      this.aside = [];
      return;
    }
    this.aside.push(input);
  }

  /** The users kept aside that are settled now (all of them once final). */
  private async recheckAside(): Promise<void> {
    if (this.aside.length === 0 || this.readTo === this.asideAt) return;
    this.asideAt = this.readTo;
    const still: ValidatedRecord[] = [];
    for (const input of this.aside) if ((await this.one(input, true)) !== 'done') still.push(input);
    this.aside = still;
  }

  private async runSteps(): Promise<void> {
    const batch = this.steps;
    this.steps = [];
    if (batch.length > 0) await this.ctx.pooled(batch, (user) => this.ctx.bySteps(user));
  }
}
