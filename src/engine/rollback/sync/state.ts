// Rolling back a sync (`auth-migrate rollback --journal <sync journal>`): the rollback (rollback.ts) calls this for
// the users the sync changed or removed; the users it added are the rollback's as for any run. What the sync
// changed is put back from the previous export (path and checksum in the sync journal's header: never copied into
// a journal), where the core still shows the sync's value; what it cannot put back is listed: an overwritten hash
// (the core never gives one back), anything whose previous record is gone, anything changed in the core since.
// Invariant: the previous export is referenced by path and checksum, never copied into a journal; what cannot be put
// back is listed.
import type { CoreClient, CoreUser, TotpDevice } from '../../../core-client/types.js';
import type { CanonicalUser } from '../../../records/types.js';
import type { ReadOptions } from '../../../sources/index.js';
import type { JournalledStep } from '../../journal/journal.js';
import { runMadeOf, type RunMade } from '../made.js';
import { readJournalHead, checksum, journalChain } from '../../sync/base.js';

import { readPreviousRecords } from '../../sync/previous.js';
import { readChainHistory, userIdOf } from '../../sync/chain.js';
import { decideSyncUndo } from './decide.js';
import { restoreKeys, type RestoreRecord } from '../../sync/chain-record.js';

export { decideSyncUndo };

/** What a sync did to one user it found in the core (or removed), for its rollback. */
export interface SyncMade {
  steps: Map<string, JournalledStep>;
  /** The user's record in the previous export (what the core held before the sync), when that file is unchanged. */
  old?: CanonicalUser;
  /** Its record in the sync's export. */
  now?: CanonicalUser;
  /** Why nothing can be restored from the previous export, when it cannot. */
  noPrevious?: string;
  plan: Record<string, unknown>;
  /** Where a user the sync removed is recorded once imported again (the first run's journal), and how far it got. */
  restore?: RestoreRecord & { whole: boolean };
}

/** What the core holds now, for the sync's undo. */
export interface SyncState {
  user?: CoreUser;
  devices?: TotpDevice[];
  metadata?: Record<string, unknown>;
  roles: Map<string, string[]>;
}

/**
 * For a sync journal: the users it found in the core get `sync` (their undo is decideSyncUndo's); the users it
 * added keep what runMadeOf made of them. Any other journal: `made` as it is.
 */
export async function attachSyncMade(
  journal: string,
  users: Map<string, Map<string, JournalledStep>>,
  made: RunMade[],
): Promise<RunMade[]> {
  const head = await readJournalHead(journal);
  if (!head?.sync) return made;
  const baseHead = await readJournalHead(head.sync.base);
  if (!baseHead) return made;
  const chain = await journalChain(baseHead);
  const histories = await readChainHistory(chain, new Set(users.keys()));
  const previous = head.sync.previous;
  let noPrevious: string | undefined;
  for (const f of previous) {
    const now = await checksum(f.path);
    if (!f.sha256 || now?.sha256 !== f.sha256) noPrevious = `the previous export ${f.path} is ${now ? 'changed since the sync' : 'gone'}`;
  }
  const ids = [...users.keys()].filter((u) => (histories.get(u)?.size ?? 0) > 0);
  const want = new Map(ids.map((u) => [u, undefined]));
  const read = (head.sync.read ?? {}) as ReadOptions;
  const olds = noPrevious
    ? new Map<string, CanonicalUser>()
    : await readRecords(
        previous.map((f) => f.path),
        want,
        read,
      );
  const nows = await readRecords(head.identity.sources, want, read);
  const plan = head.sync.plan ?? {};
  const keys = restoreKeys(head.run);
  const root = chain[0]!.path;
  const byUser = new Map(made.map((m) => [m.user, m]));
  for (const user of ids) {
    const history = histories.get(user)!;
    byUser.set(user, {
      // What runMadeOf makes of no steps (the rollback's own fields), with the user's id and the sync's undo.
      ...runMadeOf(user, new Map()),
      ...(userIdOf(history) !== undefined ? { ref: userIdOf(history)! } : {}),
      sync: {
        steps: users.get(user)!,
        ...(olds.get(user) ? { old: olds.get(user)! } : {}),
        ...(nows.get(user) ? { now: nows.get(user)! } : {}),
        ...(noPrevious ? { noPrevious } : {}),
        plan,
        restore: {
          journal: root,
          user,
          syncRun: head.run,
          begun: history.has(keys.intent),
          whole: history.has(keys.done),
          ...(bulkOf(history) ? { bulk: bulkOf(history)! } : {}),
        },
      },
    });
  }
  return [...users.keys()].map((u) => byUser.get(u)).filter((m): m is RunMade => m !== undefined);
}

/** The first run imported the user in one piece: the step its new ids are recorded under. */
function bulkOf(history: Map<string, JournalledStep>): 'bulk' | 'bulk-staged' | undefined {
  if (history.get('bulk')?.result === 'created') return 'bulk';
  return history.get('bulk-staged')?.result === 'created' ? 'bulk-staged' : undefined;
}

/** Records of `want`'s users from these files (normalised; the checksum, not a fingerprint, vouches for them). */
function readRecords(files: string[], want: Map<string, undefined>, read: ReadOptions): Promise<Map<string, CanonicalUser>> {
  return readPreviousRecords(files, read, want);
}

/** The core's state of a synced user: the user, and its devices, metadata and roles where the sync touched them. */
export async function readSyncState(core: CoreClient, made: RunMade): Promise<SyncState> {
  const state: SyncState = { roles: new Map() };
  if (made.ref === undefined) return state;
  const found = await core.getUserById(made.ref);
  if (found.status !== 'OK') return state;
  state.user = found.user;
  const keys = [...made.sync!.steps.keys()];
  const uid = found.user.id;
  if (keys.some((k) => k.startsWith('totp:') || k.startsWith('sync:remove-totp:')))
    state.devices = (await core.listTotpDevices(uid)).devices;
  if (keys.includes('sync:metadata') || keys.includes('sync:legacy-entry') || keys.includes('sync:legacy-end'))
    state.metadata = (await core.getUserMetadata(uid)).metadata;
  for (const k of keys) {
    const m = /^(?:user-role|sync:remove-role):([^:]*):/.exec(k);
    if (m && !state.roles.has(m[1]!)) state.roles.set(m[1]!, (await (m[1] ? core.forTenant(m[1]) : core).getUserRoles(uid)).roles);
  }
  return state;
}
