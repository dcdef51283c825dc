// The bulk-import processing job (the reference core's ProcessBulkImportUsers cron): every interval, per app, it
// claims up to a batch of NEW (or left PROCESSING) staged users, marks them PROCESSING, validates each again and
// imports it. An imported user leaves the staging list in the same commit that creates it, so a crash at any point
// leaves each staged user either imported once or still staged (and claimed again after a restart); a user that
// cannot be imported stays as FAILED with the reference's message.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SandboxConfig } from '../config.js';
import { key, type BulkImportRecord, type Change, type Store } from '../store/index.js';
import { javaList } from './fields.js';
import { ImportError, hashPlainTextPasswords, importChanges, type ImportCtx } from './importer.js';
import { parseBulkUser, type BulkUser } from './schema.js';
import { schemaEnv } from './staging.js';

export interface BulkImportJob {
  /** One full round now (waits for a round in progress first). */
  runOnce(): Promise<void>;
  /** No new round; resolves when the round in progress (if any) has finished and its writes are durable. */
  stop(): Promise<void>;
}

const waiting = (r: BulkImportRecord) => r.status === 'NEW' || r.status === 'PROCESSING';

export function startBulkImportJob(store: Store, config: SandboxConfig, log: (line: string) => void): BulkImportJob {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tally = { imported: 0, failed: 0 };
  const job: JobState = { store, config, tally, stopping: () => stopping };

  async function processBatch(app: string, batch: BulkImportRecord[]): Promise<void> {
    const started = Date.now();
    await importBatch(job, app, batch);
    // The claim ends on the reference's grid (config.bulkImportClaimMs): its rows are gone, the next waits.
    const grid = config.bulkImportClaimMs;
    if (grid > 0 && !stopping) {
      const spent = Date.now() - started;
      await new Promise((r) => setTimeout(r, Math.max(grid, Math.ceil(spent / grid) * grid) - spent));
    }
  }

  async function round(): Promise<void> {
    tally.imported = 0;
    tally.failed = 0;
    try {
      await processApps();
    } finally {
      // Counts only: staged users hold hashes and TOTP secrets, which never reach a log line.
      if (tally.imported + tally.failed > 0) log(`auth-migrate core: bulk import: ${tally.imported} imported, ${tally.failed} failed`);
    }
  }

  async function processApps(): Promise<void> {
    const apps = new Map<string, number>();
    for (const r of store.state.maps.bulkImport.values()) if (waiting(r)) apps.set(r.app, (apps.get(r.app) ?? 0) + 1);
    // As the reference: this round handles as many users per app as were waiting when it started.
    for (const [app, count] of apps) {
      let left = count;
      while (left > 0 && !stopping) {
        // Held by a test (POST /sandbox-test/bulk-import-hold): no claim until it is let go.
        while (config.bulkImportClaimsLeft === 0 && !stopping) await new Promise((r) => setTimeout(r, 20));
        if (stopping) break;
        if (config.bulkImportClaimsLeft !== undefined) config.bulkImportClaimsLeft--;
        const batch: BulkImportRecord[] = [];
        for (const r of store.state.maps.bulkImport.values()) {
          if (r.app === app && waiting(r)) batch.push(r);
          if (batch.length >= config.bulkImportBatchSize) break;
        }
        if (batch.length === 0) break;
        await processBatch(app, batch);
        left -= batch.length;
      }
    }
  }

  function runOnce(): Promise<void> {
    running = running.then(round).catch((err: Error) => {
      log(`auth-migrate core: the bulk import job stopped a round (${err.message}); the users it had not imported stay staged`);
    });
    return running;
  }

  const schedule = (): void => {
    if (stopping) return;
    timer = setTimeout(() => void runOnce().then(schedule), config.bulkImportIntervalMs);
  };
  // The reference's initial wait is 0: a round at start-up picks up what a crash left PROCESSING.
  void runOnce().then(schedule);

  return {
    runOnce,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** What a batch needs of its job: the store, the settings, the round's counts, and whether the job is stopping. */
interface JobState {
  store: Store;
  config: SandboxConfig;
  tally: { imported: number; failed: number };
  stopping: () => boolean;
}

const failed = (r: BulkImportRecord, message: string, now: number): Change => ({
  c: 'bulkImport',
  k: key(r.app, r.id),
  v: { ...r, status: 'FAILED', errorMessage: message, updatedAt: now },
});

/** Claims a batch (PROCESSING), then imports each user still claimed, or marks it FAILED with the reference's message. */
async function importBatch(job: JobState, app: string, batch: BulkImportRecord[]): Promise<void> {
  const { store, config, tally } = job;
  const now = config.now();
  const claim: Change[] = batch.map((r) => ({ c: 'bulkImport', k: key(app, r.id), v: { ...r, status: 'PROCESSING', updatedAt: now } }));
  await store.commit(claim);
  const ctx: ImportCtx = { app, state: store.state, config, now };
  const env = schemaEnv(ctx);
  const writes: Array<Promise<void>> = [];
  for (let i = 0; i < batch.length && !job.stopping(); i++) {
    if (i % 100 === 99) await nextTurn();
    const k = key(app, batch[i]!.id);
    let row = store.state.maps.bulkImport.get(k);
    // Removed (POST /bulk-import/users/remove) since the claim: nothing to do.
    if (!row || row.status !== 'PROCESSING') continue;
    const parsed = parseBulkUser(env, row.user, 'READ_STORED');
    if (!parsed.ok) {
      writes.push(store.commit([failed(row, javaList(parsed.errors), now)]));
      tally.failed++;
      continue;
    }
    const user: BulkUser = parsed.user;
    if (user.loginMethods.some((m) => m.passwordHash === undefined)) {
      await hashPlainTextPasswords(ctx, user);
      row = store.state.maps.bulkImport.get(k);
      if (!row || row.status !== 'PROCESSING') continue;
    }
    try {
      const { changes } = importChanges(ctx, user);
      writes.push(store.commit([...changes, { c: 'bulkImport', k }]));
      tally.imported++;
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      writes.push(store.commit([failed(row, err.message, now)]));
      tally.failed++;
    }
  }
  await Promise.all(writes);
}
