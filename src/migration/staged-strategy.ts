// `--via bulk-staged`: the users go to the core's staging list in batches (POST /bulk-import/users) and the core's
// own job imports them; this follows it (staged, processing, imported, failed), maps every FAILED row back to its
// source record, and can stop (removing what it staged and the job has not claimed) and resume from the journal.
// Per user: look it up first (found = already present); a batch the core refuses names its invalid users by
// index: they fail with the core's messages and the rest is uploaded again. Users leave the staging list when
// imported, so one that is gone is looked up again to confirm. Rows of this run are found by their first login
// method (staged-index.ts), so a run killed at any point finds what it staged when started again.
import { findBulkUser, redactBulkMessage } from './bulk-user.js';
import type { UserResult } from './events.js';
import type { MigrationInput } from './runner.js';
import type { EngineContext, Strategy } from './runner-strategy.js';
import { readStaging, removeStaged, stagedKey } from './staged-index.js';
import { prepareStaged, STAGED_STEP, uploadBatch, type Waiting } from './staged-upload.js';
import type { StagedUserRow } from '../core-client/bulk-types.js';
import { bulkShapeIds } from './rollback-shape.js';

const STEP = STAGED_STEP;

export function stagedStrategy(ctx: EngineContext): Strategy {
  const { core, journal, emit } = ctx;
  const batchSize = Math.min(10_000, Math.max(1, ctx.options.batchSize ?? 1000));
  const pollMs = ctx.options.pollMs ?? 1000;
  const concurrency = ctx.concurrency;
  const waiting = new Map<string, Waiting>();
  let before: { rows: Map<string, StagedUserRow> } = { rows: new Map() };
  /** Rows the list held when the run started and not FAILED: waited for, not uploaded again. */
  let staged = new Set<string>();
  /** FAILED rows of an earlier run for users staged again now: removed before the upload. */
  const oldFailed: string[] = [];

  const finish = async (result: UserResult, input: MigrationInput, journalIt = true): Promise<void> => {
    if (journalIt && (result.outcome === 'imported' || result.outcome === 'alreadyPresent' || result.outcome === 'failed')) {
      journal.append({
        type: 'user',
        user: result.id,
        outcome: result.outcome,
        ...(result.status ? { step: STEP, status: result.status } : {}),
      });
    }
    await ctx.finish(result, input);
  };

  const upload = async (batch: Waiting[]): Promise<void> => {
    if (oldFailed.length) await removeStaged(core, oldFailed.splice(0));
    await uploadBatch(
      core,
      batch,
      staged,
      (w) => waiting.set(stagedKey(w.body), w),
      (w, message) => {
        const base = { id: w.input.record.id, stepsRun: 1, stepsFromJournal: 0 };
        return finish({ ...base, outcome: 'failed', step: STEP, status: 'BULK_STAGE_REFUSED', message }, w.input);
      },
    );
  };

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
    const [stagedCount, processing, failed] = [counts.NEW ?? 0, counts.PROCESSING ?? 0, counts.FAILED ?? 0];
    emit({ type: 'staged-progress', staged: stagedCount, processing, failed, imported: 0, at: Date.now() });
  };

  const confirm = async (w: Waiting, found: string | undefined): Promise<void> => {
    const base = { id: w.input.record.id, stepsRun: 1, stepsFromJournal: 0 };
    if (found !== undefined) {
      // With what the import gave the user (rollback-shape.ts): a rollback tells what changed since.
      journal.append({ type: 'step', user: base.id, step: STEP, result: 'created', ids: { recipeUserId: found, ...bulkShapeIds(w.body) } });
      await finish({ ...base, outcome: 'imported', userId: found }, w.input);
    } else {
      const message = 'removed from the staging list without being imported';
      await finish({ ...base, outcome: 'failed', step: STEP, status: 'STAGED_ROW_GONE', message }, w.input);
    }
  };

  return {
    batchSize,
    async prepare() {
      // What an earlier run of this migration staged is waited for, not uploaded again; its FAILED rows are tried again.
      before = await readStaging(core);
      staged = new Set([...before.rows].filter(([, row]) => row.status !== 'FAILED').map(([key]) => key));
    },
    async take(users) {
      // Looked up `concurrency` at a time, as the other paths do.
      const batch: Waiting[] = [];
      for (let i = 0; i < users.length && !ctx.isStopping(); i += concurrency) {
        const chunk = users.slice(i, i + concurrency);
        const prepared = await Promise.all(chunk.map(({ input }) => prepareStaged(input, core, ctx.plan)));
        for (const [k, p] of prepared.entries()) {
          if ('body' in p) {
            const row = before.rows.get(stagedKey(p.body));
            if (row?.status === 'FAILED') oldFailed.push(row.id);
            batch.push(p);
          } else await finish(p, chunk[k]!.input);
        }
      }
      if (!ctx.isStopping() && batch.length > 0) await upload(batch);
    },
    async drain() {
      while (!ctx.isStopping() && waiting.size > 0) {
        await follow();
        if (waiting.size > 0) await ctx.sleep(pollMs);
      }
    },
    /** Stopping: what this run staged and the job has not claimed (NEW) is removed; the rest is left to the job. */
    async abandon() {
      if (waiting.size === 0) return;
      const { rows } = await readStaging(core);
      const ids = [...waiting.keys()]
        .map((k) => rows.get(k))
        .filter((r) => r?.status === 'NEW')
        .map((r) => r!.id);
      const removed = await removeStaged(core, ids);
      emit({ type: 'staged-removed', removed: removed.length, left: waiting.size - removed.length, at: Date.now() });
    },
  };
}
