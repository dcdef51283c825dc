// `--via bulk-staged`, the upload side: whether a user needs staging at all (already in the core), and one batch to POST /bulk-import/users, where a refused batch names its
// invalid users by index: they are reported with the core's messages and the rest is uploaded again.
import type { BulkUserBody, RefusedBatch } from '../core-client/bulk-types.js';
import { CoreClientError, CoreHttpError } from '../core-client/errors.js';
import type { CoreClient } from '../core-client/types.js';
import { bulkRoles, planBulkUser } from './bulk-plan.js';
import { ensureRoles, findBulkUser, redactBulkMessage } from './bulk-user.js';
import type { UserResult } from './events.js';
import { PlanError, type PlanOptions } from './plan.js';
import type { MigrationInput } from './runner.js';
import { stagedKey } from './staged-index.js';

/** The journal step (and report step) of a staged user. */
export const STAGED_STEP = 'bulk-staged';

/** A user to stage (or staged and waited for). */
export interface Waiting {
  input: MigrationInput;
  body: BulkUserBody;
}

/** A user to stage, or its result when it needs no upload (already in the core, or not plannable). */
export async function prepareStaged(input: MigrationInput, core: CoreClient, plan: PlanOptions): Promise<Waiting | UserResult> {
  const base = { id: input.record.id, stepsRun: 0, stepsFromJournal: 0 };
  let body: BulkUserBody;
  try {
    body = planBulkUser(input.record, { ...plan, tenantId: core.tenantId });
  } catch (err) {
    if (err instanceof PlanError) return { ...base, outcome: 'failed', step: 'plan', status: 'PLAN_ERROR', message: err.message };
    throw err;
  }
  if ((await findBulkUser(core, body)) !== undefined) return { ...base, outcome: 'alreadyPresent', stepsRun: 1 };
  return { input, body };
}

/**
 * Stage a batch (users whose key is in `staged` are already in the list: not uploaded again). `onStaged` gets
 * every user now in the list; `onRefused` every user the core refused, with its messages (secrets taken out).
 */
export async function uploadBatch(
  core: CoreClient,
  batch: Waiting[],
  staged: ReadonlySet<string>,
  onStaged: (w: Waiting) => void,
  onRefused: (w: Waiting, message: string) => Promise<void>,
): Promise<void> {
  let rest = batch.filter((w) => !staged.has(stagedKey(w.body)));
  for (const w of batch) if (staged.has(stagedKey(w.body))) onStaged(w);
  await ensureRoles(core, [...new Set(rest.flatMap((w) => bulkRoles(w.body)))]);
  while (rest.length > 0) {
    try {
      await core.bulkImport.addUsers(rest.map((w) => w.body));
    } catch (err) {
      if (!(err instanceof CoreHttpError) || err.fatal || err.status !== 400) throw err;
      const refused = parseRefusal(err.body);
      if (!refused) throw new CoreClientError(`the core refused a batch of ${rest.length} users: ${err.body.slice(0, 300)}`, true);
      const bad = new Map(refused.users.map((u) => [u.index, u.errors]));
      for (const [index, errors] of bad) await onRefused(rest[index]!, redactBulkMessage(errors.join('; '), rest[index]!.body));
      rest = rest.filter((_, i) => !bad.has(i));
      continue;
    }
    for (const w of rest) onStaged(w);
    rest = [];
  }
}

function parseRefusal(text: string): RefusedBatch | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<RefusedBatch>;
    return Array.isArray(parsed.users) ? (parsed as RefusedBatch) : undefined;
  } catch {
    return undefined;
  }
}
