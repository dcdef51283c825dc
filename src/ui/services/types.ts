// The wizard's view of the modules it drives (adapters): the UI depends on these shapes only, and
// `real.ts` connects them to profiles/, sources/, records/, sandbox/, core-client/ and migration/.
import type { Confirmation } from '../../operations/confirm.js';
import type { RunOperationEvent } from '../../operations/events.js';
import type { ClassLoss } from '../../operations/partial.js';
import type { PreflightResult } from '../../operations/preflight.js';
import type { RunHandle } from '../../operations/run.js';
import type { VerifyEvent, VerifyOutcome } from '../../operations/verify.js';
import type { LoadedProfile, Profile, ProfileHashConfig, ProfileSource, Secrets } from '../../profiles/index.js';
import type { CanonicalUser, Problem, RecordOrigin } from '../../records/types.js';
import type { KeyName } from '../state/types.js';

export type { PreflightCheck, PreflightResult } from '../../operations/preflight.js';
export type { RunHandle, RunOutcome } from '../../operations/run.js';
export type { VerifyOutcome } from '../../operations/verify.js';
export type { RollbackOutcome } from '../../operations/rollback.js';
import type { RollbackOutcome } from '../../operations/rollback.js';
import type { UndoOptions } from './rollback.js';
import type { SyncService } from './sync.js';

/** A profile as the wizard opens it: its secrets, and the sign-in secret read from the environment (memory only). */
export interface OpenedProfile extends Omit<LoadedProfile, 'missing'> {
  missing: KeyName[];
  /** From AUTH_MIGRATE_SIGNIN_SECRET, else the variable the profile names (`signinSecret`); never saved. */
  signInSecret?: string;
}

export interface ProfileService {
  list(): Promise<Profile[]>;
  load(name: string): Promise<OpenedProfile>;
  save(profile: Profile, secrets: Secrets): Promise<void>;
  remove(name: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  duplicate(from: string, to: string): Promise<void>;
  paths(): { dir: string; profiles: string; secrets: string };
}

/** Everything a reader, the validator, the planner and the runner need about the input. */
export interface WizardInput {
  sources: ProfileSource[];
  hashConfig?: ProfileHashConfig;
  signerKey?: string;
  /** The sign-in secret of migrate-at-sign-in, from the keys screen (in memory only; the run gets it, nothing keeps it). */
  signInSecret?: string;
  providerMap?: Record<string, string>;
  keepSourceIds?: boolean;
  scryptAlgorithmName?: string;
  /** Replace the password hash of users that already exist (`run --update-existing`); default: left unchanged. */
  updateExisting?: boolean;
  /** Users disabled in the source: `skip` (default), `import` or `role:NAME`, as `run --disabled`. */
  disabled?: string;
  /** Users whose hash the core cannot take: `skip` (default) or `without-password`, as `run --unusable-hashes`. */
  unusableHashes?: 'skip' | 'without-password' | 'migrate-at-sign-in';
  concurrency?: number;
  /** `steps` (default), `bulk` or `bulk-staged`, as `run --via` (migration/via.ts). */
  via?: 'steps' | 'bulk' | 'bulk-staged';
  /** `bulk-staged`: how often the core runs its bulk-import job, in seconds, as `run --job-interval`. */
  jobIntervalSec?: number;
  /** Go on although a whole class of users would be lost for a missing setting (`run --allow-partial`). */
  allowPartial?: boolean;
  /** Where the profile keeps each key: a rerun needs no export for a key the profile keeps. */
  secretStores?: Profile['secrets'];
}

export interface PreviewRecord {
  key: string;
  record: CanonicalUser;
  origin: RecordOrigin;
  problems: Problem[];
  valid: boolean;
}

export interface PreviewSummary {
  records: number;
  valid: number;
  invalid: number;
  errors: number;
  warnings: number;
  passwordUsers: Record<string, number>;
  thirdPartyUsers: Record<string, number>;
  phoneSignInUsers: number;
  totpDevices: number;
  emailFactors: number;
  smsFactors: number;
  /** Users whose hash the core cannot take, and what the run does with them (records/validate.ts). */
  unusableHashes?: { policy: 'skip' | 'without-password' | 'migrate-at-sign-in'; users: number; byAlgorithm: Record<string, number> };
  /** Source fields the readers carried and those they dropped, with why (sources/field-report.ts). */
  fields?: { dropped: Array<{ format: string; field: string; reason?: string; records: number }> };
}

export interface PreviewReport {
  summary: PreviewSummary;
  /** Every problem found (bounded by the validator). */
  problems: Problem[];
  /**
   * Problems known only at the end (cross-record duplicates name the earlier record too), by record key:
   * the preview attaches them to rows already shown, and an error there makes the row invalid.
   */
  lateProblems: { key: string; problem: Problem }[];
  /** Problems of no record: lines or rows that could not be read as users at all (listed on their own). */
  lineProblems: Problem[];
  /** Problems beyond the validator's bound (`auth-migrate validate` lists them). */
  problemsOmitted?: number;
}

export interface SpotCheckResult {
  result: string;
  detail: string;
}

/** Where the migration goes: a remote core, or the sandbox this wizard spawned. */
export interface TargetConnection {
  url: string;
  tenant?: string;
  app?: string;
  apiKey?: string;
  licenseKey?: string;
  /** `temporary`: a store in a temp folder, removed when the sandbox stops unless a run's journal points at it. */
  /** The sandbox the wizard started: its store, and the seconds between its bulk-import job's rounds. */
  sandbox?: { storePath: string; temporary?: boolean; jobIntervalSec?: number };
}

export interface SandboxHandle {
  url: string;
  storePath: string;
  stop(): Promise<void>;
}

export interface PlanSummary {
  users: number;
  skipped: number;
  totalCalls: number;
  calls: { what: string; count: number }[];
  /** The first lines of the dry run (steps per user), shown on request. */
  sample: string[];
  /** Users the journal of an earlier run of this migration on this target finished: a run carries on from it. */
  fromJournal: number;
  /** Whole classes of users the sources would lose for a missing setting (the run refuses unless allowed). */
  losses: ClassLoss[];
}

/** What the core said to one `POST /recipe/signin` (the password itself is never part of it). */
export type SignInOutcome =
  { status: 'signed-in'; userId: string; loginMethods: number } | { status: 'wrong-credentials' } | { status: 'error'; error: string };

/** A credentials file (`email,password` lines, as `verify --credentials`) checked line by line. */
export interface CredentialsFileResult {
  checked: number;
  ok: number;
  /** Each line that did not sign in: its email and the core's status or the error (never the password). */
  failed: { email: string; status: string }[];
}

export interface WizardServices {
  profiles: ProfileService;
  /** The exit code of the session, as `run` would give for its last run: 0, 1 (failed or skipped users), 2 (fatal), 130 (stopped). */
  exitCode(): number;
  completePath(partial: string): Promise<string[]>;
  /** An environment variable's value (for secrets kept as a variable name); never rendered. */
  readEnv(name: string): string | undefined;
  /** Absolute form of a path typed by the operator (profiles keep absolute paths). */
  resolvePath(path: string): string;
  detectFormat(path: string): Promise<string>;
  formats: readonly string[];
  /** The hash parameters as pasted; the signer key, if present, is returned apart (it is a secret). */
  /** The pasted `hash_config { … }` (or its JSON), or the path of a file holding it. */
  parseHashConfig(text: string): Promise<{ hashConfig: ProfileHashConfig; signerKey?: string }>;
  validate(input: WizardInput, onRecord: (r: PreviewRecord) => void): Promise<PreviewReport>;
  /** Every record of the files whose id, email, phone or external id holds `query` (case-insensitive), up to `limit`. */
  search(input: WizardInput, query: string, limit: number): Promise<{ rows: PreviewRecord[]; more: boolean }>;
  spotCheck(record: CanonicalUser, password: string, signerKey: string | undefined): Promise<SpotCheckResult>;
  startSandbox(opts: {
    store?: string;
    apiKey?: string;
    licenseKey?: string;
    signerKey?: string;
    /** Seconds between the sandbox's bulk-import job rounds (the profile's job interval); the sandbox's 5 s otherwise. */
    jobIntervalSec?: number;
  }): Promise<SandboxHandle>;
  /** The same findings and blocking rule as `run`, for what this input needs (undefined: nothing known yet). */
  preflight(target: TargetConnection, input: WizardInput | undefined): Promise<PreflightResult>;
  plan(input: WizardInput, target: TargetConnection): Promise<PlanSummary>;
  /** The run operation (operations/run.ts) on this target: its events, and its question before a real core is written. */
  run(
    input: WizardInput,
    target: TargetConnection,
    opts: { profileName: string; onEvent: (e: RunOperationEvent) => void; confirm: (c: Confirmation) => Promise<boolean> },
  ): RunHandle;
  /** The verify operation (operations/verify.ts), with its progress. */
  verify(input: WizardInput, target: TargetConnection, onEvent?: (e: VerifyEvent) => void): Promise<VerifyOutcome>;
  /** Undo this input's run on the target (as `auth-migrate rollback`); with `dryRun`, only count what it would do. */
  /** The rollback operation (operations/rollback.ts) of this input's run: its decisions, its question, its progress. */
  rollback(input: WizardInput, target: TargetConnection, o: UndoOptions): Promise<RollbackOutcome>;
  /** The sync (`run --sync`, operations/sync.ts): offered on a profile that ran into this core before. */
  sync?: SyncService;
  /** `POST /recipe/signin` on the target, as `verify --credentials` does; errors come back as an outcome. */
  signIn(target: TargetConnection, email: string, password: string): Promise<SignInOutcome>;
  /** Every line of a credentials file signed in on the target; throws when the file cannot be read or parsed. */
  checkCredentialsFile(target: TargetConnection, path: string): Promise<CredentialsFileResult>;
}
