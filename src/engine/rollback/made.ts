// What a run made, per user, read back from its journal (`auth-migrate rollback`, docs/migration.md §6b): the users
// it created, the login methods, devices and mapping it added, and on users it found already present, what it
// linked or marked. Every `--via` path: per-user steps, `bulk` and `bulk-staged` (one step per user).
// Invariant: only what the journal says the run created or added is listed; what was there before the run is never in
// it.
import { UserError } from '../../errors.js';
import type { RunIdentity, StepResult } from '../journal/journal.js';
import { readJournalEntries } from '../journal/lines.js';
import { idList } from './shape.js';
import type { SyncMade } from './sync/state.js';
import type { Unresolved } from './settle.js';

/** The journal step of a user imported in one piece (`--via bulk` and `--via bulk-staged`). */
export const BULK_STEP_KEYS = ['bulk', 'bulk-staged'] as const;

export interface RunMade {
  /** The source id (the journal's user). */
  user: string;
  /** The run created the user (its first login method): the user is removed, with what the run gave it. */
  created: boolean;
  /**
   * The id of the user the journal names: the first login method's recipe user id (per-user steps), or the user's
   * id as the bulk import answered it (the external id where one was given). Undefined: nothing made yet.
   */
  ref?: string;
  /** `ref` is the core's own id for sure (the answer that created the login method, before any mapping). */
  refIsCoreId: boolean;
  /** The external id the run mapped to the user (the `map` step), and whether the run made that mapping. */
  externalId?: string;
  mappingMade: boolean;
  /** Recipe user ids of the login methods the run created (first one first); unknown on the bulk paths. */
  methods: string[];
  /** The fingerprint of each of those login methods (shape.ts), where the journal has one. */
  sigs: Map<string, string>;
  /** The bulk paths: the run created the user whole, its login methods and devices are those the import gave it. */
  bulk?: 'bulk' | 'bulk-staged';
  /** The bulk paths: the fingerprints of the login methods the import gave the user (undefined: not journalled). */
  bulkMethods?: string[];
  /** Recipe user ids that were there before and that the run linked to a primary: unlinked, kept. */
  linkedExisting: string[];
  /** The run made this present user primary (made non-primary again when nothing else is linked to it). */
  primaryMade: boolean;
  /** TOTP devices the run imported, by name. */
  devices: string[];
  /** The run marked an email of this user verified. */
  verifiedEmail: boolean;
  /** What the run did to a present user that the journal cannot undo (a verified flag, metadata keys...). */
  notUndone: string[];
  /** A user a sync changed or removed (not added): its undo is rollback/sync/decide.ts's. */
  sync?: SyncMade;
}

interface JournalledStep {
  result: StepResult;
  ids: Record<string, string>;
}

export const CREATES_USER = (key: string): boolean =>
  key === 'password' || key === 'phone' || key === 'otp' || key.startsWith('thirdparty:');

export interface ReadJournal {
  identity: RunIdentity;
  /**
   * Per source id, its step entries in journal order, packed as lines of `[key, result, ids]` (stepsOf decodes them):
   * a few hundred bytes a user, so the journal of a million-user run fits.
   */
  users: Map<string, string>;
  /**
   * `--via bulk-staged`: users whose last journal line is the write-ahead `staged` (in an upload when the run
   * stopped): the journal cannot tell whether the core's job imported them (journal.ts).
   */
  unsettled: string[];
  /** Intents with no step line after them (the run stopped around their request): settle.ts reads the core. */
  unresolved: Unresolved;
  startedAt?: string;
}

/** A user's steps from its packed entries; `created` wins over a later run's `already` for the same step. */
export function stepsOf(packed: string): Map<string, JournalledStep> {
  const steps = new Map<string, JournalledStep>();
  for (const line of packed.split('\n')) {
    const [key, result, ids] = JSON.parse(line) as [string, StepResult, Record<string, string>];
    const prev = steps.get(key);
    steps.set(key, prev?.result === 'created' ? { ...prev, ids: { ...prev.ids, ...ids } } : { result, ids });
  }
  return steps;
}

/** Read a whole journal. A torn last line (a crash mid-write) is left out; a damaged line before others is refused. */
export async function readJournalSteps(path: string): Promise<ReadJournal> {
  const users = new Map<string, string>();
  const unsettled = new Set<string>();
  const unresolved: Unresolved = new Map();
  let identity: RunIdentity | undefined;
  let startedAt: string | undefined;
  const damaged = (line: number) =>
    new UserError(
      `${path}:${line} is damaged (not a journal entry) and is not the last line: something other than auth-migrate ` +
        'changed this journal, so what the run made cannot be read from it. Look at that line; nothing was removed.',
    );
  for await (const entry of readJournalEntries(path, damaged)) {
    if (entry.type === 'run') {
      identity ??= entry.identity;
      startedAt ??= entry.startedAt;
    } else if (entry.type === 'staged') unsettled.add(entry.user);
    else if (entry.type === 'intent') {
      let mine = unresolved.get(entry.user);
      if (!mine) unresolved.set(entry.user, (mine = new Map()));
      mine.set(entry.step, entry.who);
    } else if (entry.type === 'user') {
      unsettled.delete(entry.user);
      // The run finished with the user: each of its intents got a step line, or made nothing.
      unresolved.delete(entry.user);
    } else if (entry.type === 'step') {
      unsettled.delete(entry.user);
      const mine = unresolved.get(entry.user);
      if (mine?.delete(entry.step) && mine.size === 0) unresolved.delete(entry.user);
      const packed = JSON.stringify([entry.step, entry.result, entry.ids]);
      const prev = users.get(entry.user);
      users.set(entry.user, prev === undefined ? packed : `${prev}\n${packed}`);
    }
  }
  if (!identity) throw new UserError(`${path} is not an auth-migrate journal (no run header)`);
  return { identity, users, unsettled: [...unsettled], unresolved, ...(startedAt ? { startedAt } : {}) };
}

/** What the run made of one user, from its journalled steps (in the plan's order). */
export function runMadeOf(user: string, steps: Map<string, JournalledStep>): RunMade {
  const out: RunMade = {
    user,
    created: false,
    refIsCoreId: false,
    mappingMade: false,
    methods: [],
    sigs: new Map(),
    linkedExisting: [],
    primaryMade: false,
    devices: [],
    verifiedEmail: false,
    notUndone: [],
  };
  const created = (key: string) => steps.get(key)?.result === 'created';
  for (const key of BULK_STEP_KEYS) {
    const step = steps.get(key);
    if (!step) continue;
    out.ref = step.ids.recipeUserId;
    if (step.result === 'created') {
      out.created = true;
      out.bulk = key;
      const methods = idList(step.ids.methods);
      if (methods) out.bulkMethods = methods;
      out.devices.push(...(idList(step.ids.devices) ?? []));
    }
  }
  const entries = [...steps].filter(([key]) => CREATES_USER(key));
  const first = entries[0];
  if (first && !out.bulk) {
    out.ref = first[1].ids.recipeUserId;
    out.created = first[1].result === 'created';
    out.refIsCoreId = out.created;
  }
  for (const [, step] of entries) {
    const id = step.ids.recipeUserId;
    if (step.result !== 'created' || !id) continue;
    out.methods.push(id);
    if (step.ids.sig) out.sigs.set(id, step.ids.sig);
  }
  const map = steps.get('map');
  if (map?.ids.externalUserId) {
    out.externalId = map.ids.externalUserId;
    out.mappingMade = map.result === 'created';
  }
  for (const [key, step] of steps) {
    // A device on a user the run created is the run's whatever its step says: the user was not there before (an
    // import the core applied and answered 500 is retried by the client, and then journalled 'already').
    if (key.startsWith('totp:') && out.created) out.devices.push(step.ids.deviceName ?? key.slice('totp:'.length));
    if (step.result !== 'created') continue;
    if (key.startsWith('link:')) {
      const ref = key.slice('link:'.length);
      const id = steps.get(ref)?.ids.recipeUserId;
      if (id && !created(ref)) out.linkedExisting.push(id);
    } else if (key === 'primary') out.primaryMade = !out.created;
    else if (key.startsWith('totp:')) {
      if (!out.created) out.devices.push(step.ids.deviceName ?? key.slice('totp:'.length));
    } else if (key.startsWith('verify-email:')) {
      out.verifiedEmail = true;
      if (!out.created && !created(key.slice('verify-email:'.length))) out.notUndone.push(`${key}: the email stays verified`);
    } else if (out.created) continue;
    else if (key === 'otp-contact') out.notUndone.push('otp-contact: the contact added to an existing passwordless user stays');
    else if (key === 'metadata') out.notUndone.push('metadata: the keys added to an existing user stay');
    else if (key.startsWith('user-role:')) out.notUndone.push(`${key}: the role given to an existing user stays`);
  }
  return out;
}

/** Whether the run left anything on this user that a rollback takes back or lists. */
export function madeAnything(m: RunMade): boolean {
  return (
    m.created ||
    m.methods.length > 0 ||
    m.linkedExisting.length > 0 ||
    m.primaryMade ||
    m.devices.length > 0 ||
    m.mappingMade ||
    m.notUndone.length > 0
  );
}
