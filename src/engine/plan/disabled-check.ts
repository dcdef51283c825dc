// Whether a valid record is left out by the run's settings, knowing what earlier runs did: a user disabled in the
// source that `--disabled skip` leaves out may still be in the core from an earlier run (disabled in a newer
// export since): it can still sign in, and the report must say so instead of "not migrated".
// Invariant: a disabled user left out while the core still holds it is reported as able to sign in, never as not
// migrated.
import { CoreClientError } from '../../core-client/errors.js';
import type { CoreClient } from '../../core-client/types.js';
import type { CanonicalUser } from '../../records/types.js';
import { executeLookup } from '../strategies/steps/execute.js';
import type { JournalledUser } from '../journal/journal.js';
import { leftOut, planUserSteps, type PlanOptions } from './plan.js';

export interface LeftOut {
  status: string;
  message: string;
}

export async function leftOutOfRun(
  record: CanonicalUser,
  plan: PlanOptions,
  journalled: JournalledUser | undefined,
  core: CoreClient,
): Promise<LeftOut | undefined> {
  const out = leftOut(record, plan);
  if (!out || out.status !== 'DISABLED') return out;
  let where: string | undefined;
  if (journalled?.outcome === 'imported' || journalled?.outcome === 'alreadyPresent') where = 'an earlier run of this journal migrated it';
  else {
    const id = await inCore(record, plan, core);
    if (id !== undefined) where = `the core holds it (user ${id})`;
  }
  if (where === undefined) return out;
  return {
    status: 'DISABLED_STILL_ACTIVE',
    message:
      `disabled or blocked in the source, but ${where}: it can still sign in. ` +
      'Run with --disabled role:NAME to give it a role the app refuses (docs/migration.md §6a), or remove it in the core',
  };
}

/** The core's id of the record's first factor, if the core has it; undefined when not, or when it cannot tell. */
async function inCore(record: CanonicalUser, plan: PlanOptions, core: CoreClient): Promise<string | undefined> {
  let first;
  try {
    first = planUserSteps(record, { ...plan, disabled: 'import' })[0];
  } catch {
    return undefined; // not plannable: nothing of it can be in the core through this tool
  }
  try {
    return first ? (await executeLookup(first, core))?.ids.recipeUserId : undefined;
  } catch (err) {
    if (err instanceof CoreClientError && !err.fatal) return undefined;
    throw err;
  }
}
