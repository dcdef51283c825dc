// What a run created, read back from its journal, and the actions that take exactly that back out of the core
// (`auth-migrate rollback`, docs/migration.md). Users the run found already present are never removed: only links,
// devices and mappings the run added to them are undone, and what cannot be undone from the journal alone is listed.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { UserError } from '../errors.js';
import type { JournalEntry, RunIdentity, StepResult } from './journal.js';
import { decodeJournalLine } from './journal-lines.js';

export type RollbackAction =
  /** A recipe user this run linked to a primary, but did not create: unlinked, kept. */
  | { kind: 'unlink'; userId: string }
  /** A user this run made primary but did not create: made non-primary again. */
  | { kind: 'demote'; userId: string }
  | { kind: 'remove-device'; userId: string; deviceName: string }
  | { kind: 'remove-mapping'; externalUserId: string }
  /** A user this run created: removed with everything linked to it (what this run linked that it did not create was unlinked first). */
  | { kind: 'remove-user'; userId: string; removeAllLinkedAccounts: boolean };

export interface UserRollback {
  user: string;
  actions: RollbackAction[];
  /** What the run did to a user it did not create and the journal cannot undo (a verified flag, an added contact). */
  notUndone: string[];
}

interface JournalledStep {
  result: StepResult;
  ids: Record<string, string>;
}

const CREATES_USER = (key: string) => key === 'password' || key === 'phone' || key === 'otp' || key.startsWith('thirdparty:');

/** Read a whole journal: per user, its steps in journal order (the plan's order). */
export async function readJournalSteps(
  path: string,
): Promise<{ identity?: RunIdentity; users: Map<string, Map<string, JournalledStep>>; ended: boolean }> {
  const users = new Map<string, Map<string, JournalledStep>>();
  let identity: RunIdentity | undefined;
  let ended = false;
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let entries: JournalEntry[];
    try {
      entries = decodeJournalLine(line);
    } catch {
      continue; // a torn line: that step's answer never reached the journal (the run's next start redoes it)
    }
    for (const entry of entries) {
      if (entry.type === 'run') {
        identity ??= entry.identity;
        ended = false;
      } else if (entry.type === 'end') ended = true;
      else if (entry.type === 'step') {
        let steps = users.get(entry.user);
        if (!steps) users.set(entry.user, (steps = new Map()));
        // A later run's "already" for a step an earlier run created keeps "created": the journal's runs made it.
        const prev = steps.get(entry.step);
        steps.set(
          entry.step,
          prev?.result === 'created' ? { ...prev, ids: { ...prev.ids, ...entry.ids } } : { result: entry.result, ids: entry.ids },
        );
      }
    }
  }
  if (!identity) throw new UserError(`${path} is not an auth-migrate journal (no run header)`);
  return { identity, users, ended };
}

/** The actions for one user, in the order that leaves the core consistent at every step. */
export function planUserRollback(user: string, steps: Map<string, JournalledStep>): UserRollback {
  const out: UserRollback = { user, actions: [], notUndone: [] };
  const entries = [...steps];
  const first = entries[0];
  if (!first) return out;
  const [firstKey, firstStep] = first;
  const recipeId = (key: string) => steps.get(key)?.ids.recipeUserId;
  const created = (key: string) => steps.get(key)?.result === 'created';
  const external = created('map') ? steps.get('map')?.ids.externalUserId : undefined;
  const primaryId = firstStep.ids.recipeUserId;
  const firstCreated = firstStep.result === 'created' && CREATES_USER(firstKey);
  // The id later steps used for the first factor: the external id once mapped.
  const firstRef = steps.get('map')?.ids.externalUserId ?? primaryId;

  for (const [key, step] of entries) {
    if (step.result !== 'created' || !key.startsWith('link:')) continue;
    const ref = key.slice('link:'.length);
    const id = recipeId(ref);
    if (id && !created(ref)) out.actions.push({ kind: 'unlink', userId: id });
  }
  // Created recipe users other than the first: linked to a primary this run did not create, or standalone.
  if (!firstCreated) {
    for (const [key, step] of entries) {
      if (key === firstKey || step.result !== 'created' || !CREATES_USER(key) || !step.ids.recipeUserId) continue;
      out.actions.push({ kind: 'remove-user', userId: step.ids.recipeUserId, removeAllLinkedAccounts: false });
    }
    // With nothing linked to it any more, the present user goes back to what it was.
    if (created('primary') && primaryId) out.actions.push({ kind: 'demote', userId: firstRef ?? primaryId });
    for (const [key, step] of entries) {
      if (step.result !== 'created') continue;
      if (key.startsWith('totp:') && firstRef)
        out.actions.push({ kind: 'remove-device', userId: firstRef, deviceName: step.ids.deviceName ?? key.slice(5) });
      else if (key.startsWith('verify-email:') && !created(key.slice('verify-email:'.length)))
        out.notUndone.push(`${key}: the email stays verified`);
      else if (key === 'otp-contact') out.notUndone.push('otp-contact: the contact added to an existing passwordless user stays');
      else if (key === 'metadata') out.notUndone.push('metadata: the keys added to an existing user stay');
      else if (key.startsWith('user-role:')) out.notUndone.push(`${key}: the role given to an existing user stays`);
    }
    if (external) out.actions.push({ kind: 'remove-mapping', externalUserId: external });
  }
  if (firstCreated && firstRef) out.actions.push({ kind: 'remove-user', userId: firstRef, removeAllLinkedAccounts: true });
  return out;
}

export function describeAction(a: RollbackAction): string {
  switch (a.kind) {
    case 'unlink':
      return `unlink ${a.userId} (not created by the run; kept): POST /recipe/accountlinking/user/unlink`;
    case 'demote':
      return `make ${a.userId} non-primary again (not created by the run; kept): POST /recipe/accountlinking/user/unlink`;
    case 'remove-device':
      return `remove TOTP device "${a.deviceName}" of ${a.userId}: POST /recipe/totp/device/remove`;
    case 'remove-mapping':
      return `remove the mapping to external id ${a.externalUserId}: POST /recipe/userid/map/remove`;
    case 'remove-user':
      return `remove user ${a.userId}${a.removeAllLinkedAccounts ? ' with its linked login methods' : ''}: POST /user/remove`;
  }
}

/** A stable key per action, for the rollback's own journal. */
export const actionKey = (user: string, a: RollbackAction): string => `${user}\u0000${JSON.stringify(a)}`;
