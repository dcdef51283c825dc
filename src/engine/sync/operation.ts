// `run --sync` as one operation, for the command line and the wizard alike: find the earlier run (base.ts), read
// what its journals say of every user (chain.ts), compare the newer export with it in the validation pass
// (delta.ts), read what the migration made of the users to touch and the previous export's records of them, then
// hand the engine only those users (strategy.ts). Unchanged users cost no request and write no journal line.
// Invariant: unchanged users cost no request and write no journal line.
import { join, resolve } from 'node:path';
import type { CoreClient } from '../../core-client/types.js';
import { UserError } from '../../errors.js';
import { collectGarbage } from '../../heap.js';
import type { ReadOptions } from '../../sources/index.js';
import { streamValidatedRecords, type ValidateOptions } from '../../records/validate.js';
import type { RunIdentity } from '../journal/journal.js';
import type { PlanOptions } from '../plan/plan.js';
import { prepareRun, type PreparedRun } from '../plan/prepare.js';
import type { ValidatedRecord } from '../runner.js';
import { FOLDER_JOURNAL, newRunFolder } from '../run-folder.js';
import { chooseSyncBase, journalChain, type JournalHead, type SyncHeader } from './base.js';
import { readChainHistory, readChainUsers } from './chain.js';
import { createDeltaClassifier, type SyncDelta } from './delta.js';
import { fingerprint, fingerprintKey, type FingerprintKey } from './fingerprint.js';
import { previousExport, readPreviousRecords, type PreviousExport } from './previous.js';
import type { FingerprintOf } from '../journal/fingerprints.js';
import { newSyncWork, type SyncWork } from './work.js';
import type { BaseUsers } from './store.js';

/** What preparing a sync reads (prepareSync): the newer export, the target's text and where the runs' folders are. */
export interface SyncSetup {
  files: string[];
  readOptions: ReadOptions & ValidateOptions;
  plan: PlanOptions;
  /** describeTarget's text of the target: the base must be a run into it. */
  target: string;
  cwd: string;
  out?: string;
  fromJournal?: string;
  /** The sync's own journal (default: a new run folder beside the base's, or the stopped sync carried on). */
  journal?: string;
  removeMissing: boolean;
  /** Profile name, for the run folder's name. */
  label?: string;
}

export interface PreparedSync extends PreparedRun {
  base: JournalHead;
  chain: JournalHead[];
  /** A sync of these files that stopped: carried on in its journal. */
  resume?: JournalHead;
  delta: SyncDelta;
  work: SyncWork;
  previous: PreviousExport;
  /** Where the sync journals (a new run folder's journal when not resuming). */
  journal: string;
  identity: RunIdentity;
  header: SyncHeader;
  /** The key the sync journals fingerprints under (the base's, so the chain compares like with like). */
  fingerprintKey?: string;
  /** Users the engine is handed: new, changed, gone (and invalid records, reported as a run reports them). */
  total: number;
  inputs(): AsyncIterable<ValidatedRecord>;
  fingerprintOf: FingerprintOf;
  /** Whether anything is to be written (false: the core matches the export; no journal is made). */
  readonly hasWork: boolean;
}

/** Everything up to the first write: base, delta, histories, previous records. Reads no core. */
export async function prepareSync(req: SyncSetup): Promise<PreparedSync> {
  const sources = req.files.map((f) => (f === '-' ? f : resolve(req.cwd, f)));
  if (sources.includes('-')) throw new UserError('a sync reads its export twice: give a file, not standard input');
  const choice = await chooseSyncBase({ ...req, sources });
  const chain = await journalChain(choice.base);
  const users = await readChainUsers(chain);
  // Reading the journals (a million users: 1.75 million lines parsed) leaves its garbage where the validation pass
  // would grow on top of it: a million users' dry run peaks far higher without this collection (docs/benchmarks.md).
  collectGarbage();
  refuseWithoutFingerprints(users, choice.base.path);
  const work = newSyncWork(req.removeMissing);
  const classify = createDeltaClassifier(users, work, req.plan);
  const prepared = await prepareRun(sources, req.readOptions, req.plan, (r) => classify.add(r));
  const delta = classify.finish();

  const touched = new Set<string>([...work.changed.keys(), ...work.removals.keys()]);
  for (const [id, h] of await readChainHistory(chain, touched)) work.histories.set(id, h);
  const previous = await previousExport(choice.base.identity.sources, sources);
  if (previous.usable) await readOldRecords(work, delta, users, previous, req.readOptions);
  const header = syncHeader(req, choice.base, previous);
  const identity: RunIdentity = { sources, target: req.target, base: choice.base.path };
  const journal =
    req.journal !== undefined
      ? resolve(req.cwd, req.journal)
      : (choice.resume?.path ??
        join(newRunFolder(resolve(req.cwd, req.out ?? '.'), `${req.label ?? 'run'}-sync`, new Date()), FOLDER_JOURNAL));
  const key = choice.base.fpKey ?? undefined;
  const fpKey: FingerprintKey | undefined = key ? fingerprintKey(key) : undefined;
  const total = delta.invalid + delta.new + delta.leftOut + work.changed.size + work.removals.size;
  const inputs = async function* (): AsyncIterable<ValidatedRecord> {
    for await (const v of streamValidatedRecords(sources, req.readOptions, prepared.report)) {
      const id = v.record.id;
      if (work.removals.get(id) === 'disabled') {
        // Handed over as it stands in the core; the strategy lists it, or removes it under --remove-missing.
        yield { ...v, record: { ...v.record, disabled: false } };
        continue;
      }
      const state = users.get(id);
      if (!v.valid || state?.kind !== 'finished' || work.changed.has(id)) yield v;
    }
    for (const [id, why] of work.removals) {
      if (why === 'gone') yield { record: { id }, origin: { file: choice.base.path }, problems: [], valid: true };
    }
  };
  return {
    ...prepared,
    base: choice.base,
    chain,
    ...(choice.resume ? { resume: choice.resume } : {}),
    delta,
    work,
    previous,
    journal,
    identity,
    header,
    ...(key ? { fingerprintKey: key } : {}),
    total,
    inputs,
    fingerprintOf: (input) => (work.removals.has(input.record.id) || !fpKey ? undefined : fingerprint(input.record, fpKey)),
    get hasWork() {
      return total - delta.invalid - delta.leftOut > 0 || choice.resume !== undefined;
    },
  };
}

/** A base journal written before fingerprints cannot say which users changed: the sync refuses it. */
function refuseWithoutFingerprints(users: BaseUsers, path: string): void {
  const counts = users.counts();
  if (counts.inCore > 0 && counts.withoutFingerprint === counts.inCore) {
    throw new UserError(
      `the journal ${path} was written before fingerprints (auth-migrate 0.1): a sync cannot tell which of its ` +
        `${counts.inCore} users changed. Bring the core up to date once with \`run <newer export> --update-existing\` (a new run ` +
        'folder); later syncs start from that run.',
    );
  }
}

/** The previous export's records of the changed users (by their fingerprints), and the emails they leave. */
/**
 * One pass over the previous export: the changed users' old records (the emails they leave), and the email of the
 * first users gone from the export, which the delta lists.
 */
async function readOldRecords(
  work: SyncWork,
  delta: SyncDelta,
  users: BaseUsers,
  previous: PreviousExport,
  readOptions: SyncSetup['readOptions'],
) {
  const gone = delta.samples.gone ?? [];
  if (work.changed.size === 0 && gone.length === 0) return;
  const wanted = fingerprintsOf(users, [...work.changed.keys(), ...gone]);
  const olds = await readPreviousRecords(
    previous.files.map((f) => f.path),
    readOptions,
    wanted,
  );
  for (const id of gone) {
    const email = olds.get(id)?.email;
    if (email) delta.emails[id] = email;
  }
  for (const [id, r] of olds) if (work.changed.has(id)) work.olds.set(id, r);
  for (const [id, parts] of work.changed) {
    const was = work.olds.get(id)?.email;
    if (parts.includes('email') && was !== undefined) work.leaving.add(was.trim().toLowerCase());
  }
}

/** The sync journal's header: its base, the previous export, and how the export is read and planned. */
function syncHeader(req: SyncSetup, base: JournalHead, previous: PreviousExport): SyncHeader {
  const hashConfig = req.readOptions.hashConfig ? { ...req.readOptions.hashConfig, signerKey: undefined } : undefined;
  return {
    base: base.path,
    baseRun: base.run,
    previous: previous.files,
    read: {
      ...(req.readOptions.format ? { format: req.readOptions.format } : {}),
      ...(req.readOptions.providerMap ? { providerMap: req.readOptions.providerMap } : {}),
      ...(hashConfig ? { hashConfig } : {}),
    },
    plan: {
      keepSourceIds: req.plan.keepSourceIds ?? false,
      disabled: req.plan.disabled ?? 'skip',
      ...(req.plan.scryptAlgorithmName ? { scryptAlgorithmName: req.plan.scryptAlgorithmName } : {}),
    },
  };
}

function fingerprintsOf(users: BaseUsers, ids: string[]) {
  const keys = users.fingerprintKeys.map((k) => fingerprintKey(k));
  const out = new Map<string, { fp: Uint8Array; key: FingerprintKey }>();
  for (const id of ids) {
    const s = users.get(id);
    if (s?.kind === 'finished' && s.fp) out.set(id, { fp: Uint8Array.from(s.fp), key: keys[s.keyIndex]! });
  }
  return out;
}

/**
 * Before the first write: the core still holds the earlier run's users (not reset, not another core at its URL):
 * at least as many users as the journals say are in it, and the first changed users by their ids.
 */
export async function checkBaseAgainstCore(
  core: CoreClient,
  p: PreparedSync,
  userIdOf: (id: string) => string | undefined,
): Promise<UserError | undefined> {
  const ids = [...p.work.changed.keys()].slice(0, 5);
  const missing: string[] = [];
  for (const id of ids) {
    const uid = userIdOf(id);
    if (uid !== undefined && (await core.getUserById(uid)).status !== 'OK') missing.push(id);
  }
  if (ids.length === 0 || missing.length < ids.length) return undefined;
  return new UserError(
    `the journal ${p.base.path} says the core holds its users, but none of the ${ids.length} looked up is there (source id ${missing[0]}): ` +
      'the core was reset, or this is another core. Nothing was written. Point at the core the earlier run migrated into.',
  );
}
