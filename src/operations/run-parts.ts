// Small pieces of the run operation (run and sync both use them): the write path made from the request, what an
// earlier run's journal already finished, what a run will write (the confirmation's words), and the rerun file
// saved beside the journal of a run that stopped. Invariant: a path's options are built here from the request
// alone, so the engine is handed a made strategy and never a flag.
import type { JournalUsersView } from '../engine/journal/journal.js';
import { resumeFileOf } from '../engine/report.js';
import { VIA_EXPLAINED } from '../engine/strategies/via.js';
import { WRITE_PATHS } from '../engine/strategies/index.js';
import type { StrategyFactory } from '../engine/strategy.js';
import type { ValidatedRecord } from '../engine/runner.js';
import { openPrivate } from '../files/private.js';
import { rerunFileText, type Rerun } from './rerun.js';
import type { CoreClient } from '../core-client/types.js';
import { readSignInFile, signInStatus } from '../signin/status.js';
import type { RunRequest } from './requests.js';

/**
 * The request's write path, made from its own options: `--via bulk-staged` takes the batch size, the core's job
 * interval and `records` (the same records again, read a second time to report what the job imported).
 */
export function writePathOf(
  request: Pick<RunRequest, 'via' | 'batchSize' | 'jobIntervalMs' | 'stallAfterMs'>,
  records: () => AsyncIterable<ValidatedRecord>,
): StrategyFactory {
  switch (request.via) {
    case 'steps':
      return WRITE_PATHS.steps.strategy();
    case 'bulk':
      return WRITE_PATHS.bulk.strategy();
    case 'bulk-staged':
      return WRITE_PATHS['bulk-staged'].strategy({
        batchSize: request.batchSize,
        jobIntervalMs: request.jobIntervalMs,
        stallAfterMs: request.stallAfterMs,
        reopenInputs: records,
      });
  }
}

/** Users an earlier run's journal holds as finished (imported or already present): they are not sent again. */
export function finishedUsers(users: JournalUsersView): number {
  let n = 0;
  for (const [, u] of users) if (u.outcome === 'imported' || u.outcome === 'alreadyPresent') n += 1;
  return n;
}

/** What a run will write, in the words of the confirmation (both shells show these lines). */
export function runEffects(settings: RunRequest, valid: number, fromJournal: number): string[] {
  const left = Math.max(0, valid - fromJournal);
  return [
    `writes up to ${valid} users (the valid records) via ${settings.via}: ${VIA_EXPLAINED[settings.via]}`,
    ...(fromJournal > 0 ? [`${fromJournal} of them were finished by the earlier run of this migration (journal): ${left} left`] : []),
    ...(settings.plan.updateExisting ? ['replaces the password hash of users already in the core (update existing)'] : []),
  ];
}

/** resume.txt beside the journal (0600): the rerun command, and which variables to export first. */
export async function writeRerunFile(journal: string, rerun: Rerun): Promise<string> {
  const path = resumeFileOf(journal);
  const fh = await openPrivate(path, 'w');
  try {
    await fh.writeFile(rerunFileText(rerun));
  } finally {
    await fh.close();
  }
  return path;
}

/** Migration at first sign-in: users still waiting (per algorithm) and how the others ended (src/signin/status.ts). */
export interface SignInCounts {
  waiting: number;
  ended: { 'sign-in': number; 'password-set': number; expired: number };
  byAlgorithm: Record<string, number>;
}

/** The counts of `auth-migrate signin-status` after a migrate-at-sign-in run (the core's answer, up to 20,000 users). */
export async function signInCountsOf(client: CoreClient, file: string): Promise<SignInCounts | undefined> {
  try {
    const users = await readSignInFile(file);
    if (users.length > 20_000) return undefined;
    const s = await signInStatus(client, users);
    return {
      waiting: s.waiting,
      ended: s.ended,
      byAlgorithm: Object.fromEntries(Object.entries(s.byAlgorithm).map(([a, v]) => [a, v.waiting])),
    };
  } catch {
    return undefined; // the counts are a convenience: signin-status says what went wrong
  }
}
