// `--via bulk-staged`: the users go to the core's staging list in batches (POST /bulk-import/users) and the core's
// own job imports them; this follows it (staged, processing, imported, failed), maps every FAILED row back to its
// source record, and can stop (removing what it staged and the job has not claimed) and resume from the journal.
// Per user: look it up first (found = already present); a batch the core refuses names its invalid users by
// index: they fail with the core's messages and the rest is uploaded again. Users leave the staging list when
// imported, so one that is gone is looked up again to confirm. Rows of this run are found by their first login
// method (staged-index.ts), so a run killed at any point finds what it staged when started again.
import { UserError } from '../errors.js';
import { findBulkUser, redactBulkMessage } from './bulk-user.js';
import { doneCount, emptyTotals, type UserResult } from './events.js';
import type { MigrationInput, MigrationRun, RunnerOptions, RunSummary } from './runner.js';
import { readStaging, removeStaged, stagedKey } from './staged-index.js';
import { prepareStaged, STAGED_STEP, uploadBatch, type Waiting } from './staged-upload.js';
import { migrationRun, PauseGate } from './pause-gate.js';

export interface StagedOptions extends RunnerOptions {
  /** Users per upload (at most 10,000; default 1,000). */
  batchSize?: number;
  /** How often the staging list is read while the job works (default 1 s). */
  pollMs?: number;
}

const STEP = STAGED_STEP;

export function startStagedMigration(options: StagedOptions): MigrationRun {
  const emit = options.onEvent ?? (() => {});
  const { core, journal } = options;
  const batchSize = Math.min(10_000, Math.max(1, options.batchSize ?? 1000));
  const pollMs = options.pollMs ?? 1000;
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const totals = emptyTotals(options.total);
  const started = Date.now();
  let stopped: RunSummary['stopped'];
  let fatal: Error | undefined;
  const pauses = new PauseGate(emit);
  let sleeper: (() => void) | undefined;
  const waiting = new Map<string, Waiting>();

  const requestStop = (reason: 'requested' | 'fatal', err?: Error): void => {
    if (stopped) return;
    stopped = reason;
    fatal = err;
    emit({ type: 'stopping', reason, message: err?.message, at: Date.now() });
    pauses.resume();
    sleeper?.();
  };

  const finish = async (result: UserResult, input: MigrationInput, journalIt = true): Promise<void> => {
    if (journalIt && (result.outcome === 'imported' || result.outcome === 'alreadyPresent' || result.outcome === 'failed')) {
      journal.append({
        type: 'user',
        user: result.id,
        outcome: result.outcome,
        ...(result.status ? { step: STEP, status: result.status } : {}),
      });
    }
    if (result.outcome === 'imported') totals.imported += 1;
    else if (result.outcome === 'alreadyPresent') totals.alreadyPresent += 1;
    else if (result.outcome === 'failed') totals.failed += 1;
    else totals.skipped += 1;
    if (result.resumed) totals.resumed += 1;
    await options.onUserResult?.(result, input);
    emit({ type: 'user-done', result, done: doneCount(totals), totals: { ...totals }, at: Date.now() });
  };

  const upload = (batch: Waiting[], staged: Set<string>): Promise<void> =>
    uploadBatch(
      core,
      batch,
      staged,
      (w) => waiting.set(stagedKey(w.body), w),
      (w, message) => {
        const base = { id: w.input.record.id, stepsRun: 1, stepsFromJournal: 0 };
        return finish({ ...base, outcome: 'failed', step: STEP, status: 'BULK_STAGE_REFUSED', message }, w.input);
      },
    );

  /** Read the staging list: progress, FAILED rows of ours mapped back, users gone from it confirmed imported. */
  const follow = async (): Promise<void> => {
    const { rows, counts } = await readStaging(core);
    const gone: Waiting[] = [];
    for (const [key, w] of [...waiting]) {
      const row = rows.get(key);
      if (row && row.status !== 'FAILED') continue;
      waiting.delete(key);
      if (!row) {
        gone.push(w);
        continue;
      }
      const base = { id: w.input.record.id, stepsRun: 1, stepsFromJournal: 0 };
      const message = redactBulkMessage(row.errorMessage ?? "failed by the core's bulk-import job", w.body);
      await finish({ ...base, outcome: 'failed', step: STEP, status: 'BULK_IMPORT_FAILED', message }, w.input);
    }
    // Gone from the list: imported by the job (or removed by someone); confirmed by a look-up, `concurrency` at once.
    for (let i = 0; i < gone.length; i += concurrency) {
      const chunk = gone.slice(i, i + concurrency);
      const founds = await Promise.all(chunk.map((w) => findBulkUser(core, w.body)));
      for (const [k, w] of chunk.entries()) await confirm(w, founds[k]);
    }
    const imported = totals.imported + totals.alreadyPresent;
    const [staged, processing, failed] = [counts.NEW ?? 0, counts.PROCESSING ?? 0, counts.FAILED ?? 0];
    emit({ type: 'staged-progress', staged, processing, failed, imported, at: Date.now() });
  };

  const confirm = async (w: Waiting, found: string | undefined): Promise<void> => {
    const base = { id: w.input.record.id, stepsRun: 1, stepsFromJournal: 0 };
    if (found !== undefined) {
      journal.append({ type: 'step', user: base.id, step: STEP, result: 'created', ids: { recipeUserId: found } });
      await finish({ ...base, outcome: 'imported' }, w.input);
    } else {
      const message = 'removed from the staging list without being imported';
      await finish({ ...base, outcome: 'failed', step: STEP, status: 'STAGED_ROW_GONE', message }, w.input);
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      sleeper = resolve;
      setTimeout(resolve, ms);
    });

  const main = async (): Promise<void> => {
    // What an earlier run of this migration staged is waited for, not uploaded again; its FAILED rows are tried again.
    const before = await readStaging(core);
    const staged = new Set([...before.rows].filter(([, row]) => row.status !== 'FAILED').map(([key]) => key));
    /** FAILED rows of an earlier run for users staged again now: removed before the upload. */
    const oldFailed: string[] = [];
    let batch: Waiting[] = [];
    const flush = async (): Promise<void> => {
      if (oldFailed.length) await removeStaged(core, oldFailed.splice(0));
      await upload(batch, staged);
      batch = [];
    };
    const iterator = options.inputs[Symbol.asyncIterator]();
    try {
      let ended = false;
      while (!stopped && !ended) {
        await pauses.gate;
        if (stopped) break;
        // Up to `concurrency` records looked up at once, as the other paths do.
        const chunk: MigrationInput[] = [];
        while (chunk.length < concurrency) {
          const next = await iterator.next();
          if (next.done) {
            ended = true;
            break;
          }
          chunk.push(next.value);
        }
        const prepared = await Promise.all(chunk.map((input) => prepareStaged(input, core, journal, options.plan ?? {})));
        for (const [i, p] of prepared.entries()) {
          if ('input' in p) {
            const row = before.rows.get(stagedKey(p.body));
            if (row?.status === 'FAILED') oldFailed.push(row.id);
            batch.push(p);
          } else await finish(p, chunk[i]!, !p.resumed && p.outcome !== 'skipped');
          if (batch.length >= batchSize) await flush();
        }
      }
      if (!stopped && batch.length > 0) await flush();
    } finally {
      await iterator.return?.(undefined).catch(() => undefined);
    }
    while (!stopped && waiting.size > 0) {
      await follow();
      if (waiting.size > 0 && !stopped) await sleep(pollMs);
    }
    if (stopped && waiting.size > 0) await unstage();
  };

  /** Stopping: what this run staged and the job has not claimed (NEW) is removed; the rest is left to the job. */
  const unstage = async (): Promise<void> => {
    const { rows } = await readStaging(core);
    const ids = [...waiting.keys()]
      .map((k) => rows.get(k))
      .filter((r) => r?.status === 'NEW')
      .map((r) => r!.id);
    const removed = await removeStaged(core, ids);
    emit({ type: 'staged-removed', removed: removed.length, left: waiting.size - removed.length, at: Date.now() });
  };

  const done = (async (): Promise<RunSummary> => {
    emit({ type: 'run-started', total: options.total, concurrency, journal: journal.path, at: started });
    try {
      await main();
    } catch (err) {
      requestStop('fatal', err instanceof Error ? err : new UserError(String(err)));
      try {
        if (waiting.size > 0) await unstage();
      } catch {
        // the core is gone: the next run finds the staged rows by their account info
      }
    }
    await journal.flush();
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
