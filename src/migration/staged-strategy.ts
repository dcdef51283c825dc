// `--via bulk-staged`: users go to the core's staging list in batches (POST /bulk-import/users, up to 10,000 a
// request) and the core's own job imports them. Without a request per user: what the core holds is learnt once
// in bulk (bulk-knowledge.ts; into a core more than 10 times the run, each user is looked up instead:
// staged-lookup.ts), and only users with none of their login methods (or external id) there are
// staged; the others are partly in the core and the per-user steps complete them, as they would on `--via steps`.
// Each upload is written ahead in the journal and never sent twice (staged-upload.ts); a batch goes up while the
// next is prepared (one upload at a time, in the source's order) and while the job works; the job is followed by
// the list's counts (staged-follow.ts, staged-job.ts), and what it has likely imported is read back in its pauses
// (staged-early.ts); then its FAILED rows and the core's users of the join times still awaited are read back in
// bulk (staged-readback.ts), and the results written (staged-results.ts: those read back as imported while the
// core works; the rest from a second read of the source, or the records small runs keep). Memory is a batch or two
// plus a few dozen bytes per staged user (staged-table.ts).
import type { BulkUserBody } from '../core-client/bulk-types.js';
import { collectGarbage } from '../heap.js';
import { KEEP_RECORDS_UP_TO } from '../records/validate.js';
import { planBulkUser } from './bulk-plan.js';
import type { CoreKnowledge } from './bulk-knowledge.js';
import { PlanError } from './plan.js';
import type { Admitted, EngineContext, Strategy } from './runner-strategy.js';
import { EarlyReadBack } from './staged-early.js';
import { JobFollower } from './staged-follow.js';
import { JobWatcher } from './staged-job.js';
import { removeStaged, rowJoined, stagedKey, stagingPages } from './staged-index.js';
import { AWAITED, readBack } from './staged-readback.js';
import { finishReadBefore, ReportMeanwhile, reportStaged } from './staged-results.js';
import { EXISTS, STAGED, StagedTable } from './staged-table.js';
import { STAGED_STEP, stageBatch, type ToStage } from './staged-upload.js';
import { learnCore, planAndLookUp, type Learnt } from './staged-lookup.js';

/** The reference's job interval (BulkImport.PROCESS_USERS_INTERVAL_SECONDS). */
export const REFERENCE_JOB_INTERVAL_MS = 300_000;
export const DEFAULT_STAGED_BATCH = 10_000;
/** Batches of at least this many users end with a full collection (tens of milliseconds; none for small runs). */
const GC_EVERY = 2_000;

/** A record without a join date joins this long before the run began (the core refuses a time in its future). */
const CLOCK_MARGIN_MS = 60_000;

export function stagedStrategy(ctx: EngineContext): Strategy {
  const { core, journal, emit } = ctx;
  const batchSize = Math.min(10_000, Math.max(1, ctx.options.batchSize ?? DEFAULT_STAGED_BATCH));
  // The job's counts: once a second while uploading; four times a second once only the job is left, so that its
  // end is seen within a quarter of a second (three count requests each time, as cheap as a look-up).
  const pollMs = ctx.options.pollMs ?? 1000;
  const followMs = ctx.options.pollMs ?? 250;
  const runJoined = Date.now() - CLOCK_MARGIN_MS;
  const table = new StagedTable(ctx.options.total);
  // The records are kept for the results when the source cannot be read again, and for runs small enough that a
  // second read of the source costs more than they do (20,000 users: about 30 MB kept, 0.3 s of reading saved).
  if (!ctx.options.reopenInputs || ctx.options.total <= KEEP_RECORDS_UP_TO) table.inputs = [];
  // Runs that keep their records hold them to the end whatever is collected: no full collections (tens of ms each).
  const collect = table.inputs ? () => undefined : collectGarbage;
  // The results of users read back as imported are written while the core works (its job, the final read-back).
  const reporter = new ReportMeanwhile(ctx, table, (user) => planned(user));
  const early = new EarlyReadBack(core, table, reporter.queue);
  let known: Learnt | undefined;
  const watcher = new JobWatcher(ctx.options.jobIntervalMs ?? REFERENCE_JOB_INTERVAL_MS, () => table.countIn(STAGED));
  const follower = new JobFollower(ctx, table, watcher, early, followMs);
  /**
   * The batch being uploaded while the next is read and planned; the next upload leaves when this one is answered.
   * One upload at a time: the reference's job claims rows in the order PostgreSQL stored them, so uploads one after
   * the other keep each claim a run of the source's users, which the read-back settles in the job's pause. Two at
   * once interleaved their rows: each claim spread over the whole run, and the final read had to read all of it
   * (20,000 users on the reference: 1.2 s read at the end instead of 0.3 s; both batches stored 0.4 s sooner).
   */
  let uploading: Promise<void> | undefined;
  const uploaded = async (): Promise<void> => {
    const u = uploading;
    uploading = undefined;
    await u;
  };
  const phase = (p: 'learning' | 'uploading' | 'following' | 'reading-back' | 'reporting', detail: string) =>
    emit({ type: 'staged-phase', phase: p, detail, at: Date.now() });

  /** The bulk body of a user, the key of its first login method and the join time that identifies it in the core. */
  const planOf = (user: Admitted): { body: BulkUserBody; key: string; joined: number; externalUserId?: string } => {
    const fallback = user.journalled?.staged ?? runJoined;
    const body = planBulkUser(user.input.record, { ...ctx.plan, tenantId: core.tenantId, joinedWhenUnknown: fallback });
    const joined = body.loginMethods[0]!.timeJoinedInMSSinceEpoch ?? fallback;
    return { body, key: stagedKey(body), joined, ...(body.externalUserId !== undefined ? { externalUserId: body.externalUserId } : {}) };
  };

  const planned = (user: Admitted) => {
    try {
      return planOf(user);
    } catch {
      return undefined;
    }
  };

  const learn = async () => (known ??= await learnCore(core, ctx.options.total, batchSize, (p, detail) => phase(p, detail)));
  const planBatch = (users: Admitted[], knowledge: CoreKnowledge, lookUp: boolean) =>
    planAndLookUp(core, users, planOf, knowledge, lookUp, (items, fn) => ctx.pooled(items, fn));

  const refuse = async (s: ToStage, message: string): Promise<void> => {
    const id = s.user.input.record.id;
    journal.append({ type: 'user', user: id, outcome: 'failed', step: STAGED_STEP, status: 'BULK_STAGE_REFUSED' });
    await ctx.finish(
      { id, outcome: 'failed', step: STAGED_STEP, status: 'BULK_STAGE_REFUSED', message, stepsRun: 1, stepsFromJournal: 0 },
      s.user.input,
    );
  };

  return {
    batchSize,
    async take(users) {
      const { snapshot, knowledge, lookUp } = await learn();
      const plans = await planBatch(users, knowledge, lookUp);
      if (ctx.isStopping()) return; // users not looked up are not staged; the same command carries on
      const toStage: ToStage[] = [];
      const bySteps: Admitted[] = [];
      const oldFailed: string[] = [];
      for (const user of users) {
        if (await finishReadBefore(ctx, user)) continue;
        // Steps an earlier run began for this user (it was partly in the core then): they carry on.
        if (user.journalled && user.journalled.steps.size > 0) {
          bySteps.push(user);
          continue;
        }
        let p;
        try {
          p = plans.get(user) ?? planOf(user);
        } catch (err) {
          if (!(err instanceof PlanError)) throw err;
          const id = user.input.record.id;
          await ctx.finish(
            { id, outcome: 'failed', step: 'plan', status: 'PLAN_ERROR', message: err.message, stepsRun: 0, stepsFromJournal: 0 },
            user.input,
          );
          continue;
        }
        const inDoubt = user.journalled?.staged !== undefined;
        const row = snapshot.get(p.key);
        if (row && row.status !== 'FAILED') {
          // Staged already (by a run of this migration that stopped): waited for, never uploaded again.
          ctx.fingerprints.forget(user.input.record.id); // noted again when it is settled
          const i = table.add(p.key, row.joined, STAGED);
          table.setRowId(i, row.id);
          if (table.inputs) table.inputs[i] = user.input;
          if (user.journalled?.staged !== row.joined) journal.append({ type: 'staged', user: user.input.record.id, joined: row.joined });
          continue;
        }
        if (row?.status === 'FAILED' && row.joined === p.joined) oldFailed.push(row.id);
        if (knowledge.holdsAnyOf(p.body)) {
          if (inDoubt) {
            // In an upload when a run stopped, and in the core now: read back decides whether that upload made it.
            ctx.fingerprints.forget(user.input.record.id); // noted again when it is settled
            const i = table.add(p.key, p.joined, EXISTS);
            if (table.inputs) table.inputs[i] = user.input;
          } else bySteps.push(user);
          continue;
        }
        toStage.push({ user, ...p });
      }
      if (oldFailed.length > 0) await removeStaged(core, oldFailed);
      const before = uploading;
      // This batch's upload leaves once the one before is answered; its users that need steps start at once.
      const staging =
        toStage.length > 0
          ? (before ?? Promise.resolve()).then(() => stageBatch(ctx, table, toStage, (n) => watcher.staged(n), refuse))
          : undefined;
      const upload = Promise.all([staging, ctx.pooled(bySteps, (u) => ctx.bySteps(u))]).then(() => undefined);
      upload.catch(() => undefined); // awaited by the next batch or the drain; only kept from going unhandled here
      uploading = upload;
      await before;
      // A job far behind the uploads gains nothing from a second one at once: one batch in memory, not two.
      if (table.countIn(STAGED) >= 2 * batchSize) await uploaded();
      if (Date.now() - follower.lastLook >= pollMs && table.countIn(STAGED) > 0) await follower.look();
      // A batch leaves tens of MB behind (its records, bodies, request and the core's echo of every user): without a
      // collection here V8 lets the old generation grow past several batches' worth before it collects (heap.ts).
      if (users.length >= GC_EVERY) collect();
    },

    async drain() {
      await uploaded();
      if (table.size === 0) return;
      const following = () => phase('following', "waiting for the core's bulk-import job to take every staged user");
      if (!(await follower.toTheEnd(following))) return;
      await early.idle();
      const meanwhile = early.settled > 0 ? `; ${early.settled.toLocaleString('en-US')} read back while the job worked` : '';
      phase(
        'reading-back',
        `reading the core's users back (500 a request, from the first to the last join time of the ${table
          .countIn(...AWAITED)
          .toLocaleString('en-US')} users awaited${meanwhile}) to confirm what the job imported`,
      );
      // Each page's users read back as imported get their results while the next pages are read.
      const read = await readBack(core, table, reporter.queue).then(
        () => undefined,
        (err: unknown) => ({ err }),
      );
      await reporter.done(); // the results written meanwhile (the last pass queued included)
      if (read) throw read.err;
      if (table.failedRows.size > 0) await removeStaged(core, [...table.failedRows]); // the run's leftovers; settled below
      phase('reporting', 'writing the results of the staged users');
      await reportStaged(ctx, table, collect, planned);
    },

    /** Stopping: this run's rows the job has not claimed (NEW) are taken out of the list; PROCESSING ones are left to it. */
    async abandon() {
      await uploaded().catch(() => undefined); // an upload under way lands first, then its rows are taken back too
      await early.idle();
      await reporter.done().catch(() => undefined);
      const ours = table.countIn(STAGED);
      if (ours === 0) return;
      const ids: string[] = [];
      for await (const page of stagingPages(core, 'NEW')) {
        for (const row of page) {
          if (!row.loginMethods?.length) continue;
          const i = table.find(stagedKey(row));
          if (i !== undefined && table.state[i] === STAGED && rowJoined(row) === table.joined[i]) ids.push(row.id);
        }
      }
      const removed = await removeStaged(core, ids);
      emit({ type: 'staged-removed', removed: removed.length, left: ours - removed.length, at: Date.now() });
    },
  };
}
