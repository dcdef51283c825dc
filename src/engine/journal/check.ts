// Before a resumed run skips the users its journal says are done, make sure the core still holds some of them:
// the same journal against a core that was reset (or a new sandbox store at the same path) would otherwise
// report those users as present while the core has none of them.
// Invariant: a journal that says users are done is trusted only when the core holds at least as many users, and the
// sampled ones by their ids.
import type { CoreClient } from '../../core-client/types.js';
import { usersInTenant } from '../../core-client/users-count.js';
import { UserError } from '../../errors.js';
import { journalledRecipeUserIds, type Journal, type JournalledUser } from './journal.js';

/** How many finished users to look up, spread over the journal. */
export const JOURNAL_SAMPLE = 5;

export async function checkJournalAgainstCore(journal: Journal, core: CoreClient, sample = JOURNAL_SAMPLE): Promise<UserError | undefined> {
  // Two walks over the users instead of a list of every finished one (millions, on a large resume).
  const finishedWithId = (entry: JournalledUser): string | undefined =>
    entry.outcome === 'imported' || entry.outcome === 'alreadyPresent' ? journalledRecipeUserIds(entry.steps)[0] : undefined;
  let doneCount = 0;
  for (const [, entry] of journal.users) if (finishedWithId(entry) !== undefined) doneCount++;
  const done = { length: doneCount };
  if (done.length === 0) return undefined;
  // First the count, one request: a core that lost any journalled user holds fewer users than the journal says
  // (whichever users are gone, so the answer does not depend on which ones the samples below look at).
  const count = await usersInTenant(core);
  if (typeof count === 'number' && count < done.length) {
    return new UserError(
      `the journal ${journal.path} records ${done.length} users as migrated, but the core holds ` +
        (count === 0
          ? 'no users in this tenant: it was reset, or this is another core'
          : `only ${count} users in this tenant: it lost some (a restore, a reset, a removal)`) +
        '. Nothing was written. Point at the core this journal belongs to, or start over with a new --journal path: ' +
        'users still in the core are found and reported as already present, the lost ones are imported again.',
    );
  }
  // Then samples by id: another core that happens to hold as many users.
  const picks = new Set<number>();
  for (let i = 0; i < Math.min(sample, done.length); i++) picks.add(Math.floor((i * (done.length - 1)) / Math.max(1, sample - 1)));
  const picked: Array<[string, string]> = [];
  let at = 0;
  for (const [user, entry] of journal.users) {
    const id = finishedWithId(entry);
    if (id === undefined) continue;
    if (picks.has(at)) picked.push([user, id]);
    at++;
  }
  const missing: string[] = [];
  for (const [user, id] of picked) {
    const answer = await core.getUserById(id);
    if (answer.status !== 'OK') missing.push(user);
  }
  if (missing.length === 0) return undefined;
  return new UserError(
    `the journal ${journal.path} records ${done.length} users as migrated, but the core does not have ` +
      `${missing.length} of the ${picks.size} looked up (source id ${missing[0]}): the core was reset, or this is ` +
      'another core. Nothing was written. Point at the core this journal belongs to, or start over with a new ' +
      '--journal path (every step is idempotent, so users already in the core are reported as already present).',
  );
}
