// The wizard's whole state and every way it can change (a discriminated union), kept apart from React.
import type { Confirmation } from '../../operations/confirm.js';
import type { RunOperationEvent } from '../../operations/events.js';
import type { Profile, SecretName, Secrets } from '../../profiles/index.js';
import type { SyncAction, SyncState } from './sync.js';
import type {
  OpenedProfile,
  PlanSummary,
  PreflightResult,
  CredentialsFileResult,
  PreviewRecord,
  PreviewReport,
  RunOutcome,
  SignInOutcome,
  SpotCheckResult,
  TargetConnection,
  VerifyOutcome,
} from '../services/types.js';

/** A key of the keys screen: the profile's secrets, and the sign-in secret (kept in memory or named by a variable). */
export type KeyName = SecretName | 'signInSecret';

export const STEPS = ['profile', 'keys', 'source', 'preview', 'target', 'plan', 'run', 'results'] as const;
export type Step = (typeof STEPS)[number];

export type Task<T> = { status: 'idle' } | { status: 'running' } | { status: 'done'; value: T } | { status: 'failed'; error: string };

/** `lines`: the lines or rows that could not be read as users (no record to show), listed instead of the table. */
export type PreviewFilter = 'all' | 'errors' | 'warnings' | 'lines';

export interface PreviewState {
  rows: PreviewRecord[];
  /** Records seen; rows beyond the kept limit are counted, not kept. */
  seen: number;
  filter: PreviewFilter;
  cursor: number;
  detail?: string;
  spotCheck: Task<SpotCheckResult>;
  /** A search through every record of the files (not only the rows kept): the table shows what it found. */
  search?: PreviewSearch;
}

export interface PreviewSearch {
  query: string;
  status: 'running' | 'done' | 'failed';
  rows: PreviewRecord[];
  /** More records matched than are shown. */
  more: boolean;
  error?: string;
}

export interface RunState {
  /** `preparing`: validating, connecting, preflight; `confirming`: the question before a real core is written. */
  status: 'idle' | 'preparing' | 'confirming' | 'running' | 'paused' | 'stopping' | 'finished' | 'failed';
  startedAt?: number;
  total: number;
  done: number;
  imported: number;
  alreadyPresent: number;
  failed: number;
  skipped: number;
  retries: number;
  /** Users at once, once the run adapted it to the core (limit of max). */
  atOnce?: { limit: number; max: number };
  /** `--via bulk-staged`: the latest line about the core's bulk-import job. */
  staged?: string;
  /** `--via steps`: how the run learns what the core holds (read in bulk, or each user looked up). */
  knowledge?: string;
  /** Users the journal of an earlier run already had (left out of the rate). */
  resumed: number;
  /** Time spent paused so far, and when the current pause began (both left out of the rate and elapsed time). */
  pausedMs: number;
  pausedAt?: number;
  latestFailures: string[];
  /** The latest users left out, each with why (the report has them all). */
  latestSkips: string[];
  /** The preflight's warnings, shown while the run goes. */
  warnings: string[];
  /** The question before a real core is written, while it waits for `y` or `esc`. */
  confirm?: Confirmation;
  /** Where the run writes, known right before its first write (and what an earlier run already finished). */
  folder?: Extract<RunOperationEvent, { type: 'run-folder' }>;
  outcome?: RunOutcome;
  error?: string;
}

/** verify's progress on the results screen. */
export interface VerifyProgress {
  checked: number;
  total: number;
}

/** One sign-in check on the results screen: an email or a credentials file, and what came of it. */
export type SignInEntry =
  | { kind: 'single'; email: string; outcome: SignInOutcome }
  | { kind: 'file'; path: string; result: CredentialsFileResult }
  | { kind: 'file-error'; path: string; error: string };

/** The results screen's sign-in panel. Passwords are never here: the panel's field holds one until Enter. */
export interface SignInState {
  open: boolean;
  running: boolean;
  /** The latest checks, newest last (a short list). */
  results: SignInEntry[];
}

export interface WizardState {
  step: Step;
  profiles: Task<Profile[]>;
  profile?: Profile;
  /** In memory only; written to disk only for secrets whose source is `file`, when the profile is saved. */
  secrets: Secrets;
  /** Secrets the loaded profile promised but could not deliver (env var unset...). */
  missingSecrets: KeyName[];
  /**
   * The sign-in secret (`--unusable-hashes migrate-at-sign-in` signs each legacy entry with it): typed on the keys
   * screen or read from AUTH_MIGRATE_SIGNIN_SECRET (or the variable the profile names) when the profile is opened.
   * In memory only: never saved (the profile keeps at most the name of the variable), logged or rendered.
   */
  signInSecret?: string;
  validation: Task<PreviewReport>;
  preview: PreviewState;
  target: Task<TargetConnection>;
  preflight: Task<PreflightResult>;
  plan: Task<PlanSummary>;
  dryRun: boolean;
  /** Go on although the sources lose a whole class of users for a missing setting (this session only, as --allow-partial). */
  allowPartial: boolean;
  run: RunState;
  /** The second pass of a cutover, offered on a profile that ran into this core before (state/sync.ts). */
  sync: SyncState;
  verify: Task<VerifyOutcome>;
  verifyProgress?: VerifyProgress;
  signIn: SignInState;
  save: Task<string>;
  /** One line of feedback shown above the footer. */
  notice?: { kind: 'info' | 'error'; text: string };
}

export type Action =
  | SyncAction
  | { type: 'profiles-loaded'; profiles: Profile[] }
  | { type: 'profiles-failed'; error: string }
  | { type: 'profile-opened'; loaded: OpenedProfile }
  | { type: 'profile-updated'; profile: Profile }
  | { type: 'secret-typed'; name: KeyName; value: string }
  | { type: 'go'; step: Step }
  | { type: 'back' }
  | { type: 'notice'; kind: 'info' | 'error'; text: string }
  | { type: 'validation-started' }
  | { type: 'validation-record'; record: PreviewRecord }
  | { type: 'validation-finished'; report: PreviewReport }
  | { type: 'validation-failed'; error: string }
  | { type: 'preview-filter'; filter: PreviewFilter }
  | { type: 'preview-search'; search: PreviewSearch | undefined }
  | { type: 'preview-move'; delta: number; pageSize?: number }
  | { type: 'preview-detail'; key: string | undefined }
  | { type: 'spot-check-started' }
  | { type: 'spot-check-finished'; result: SpotCheckResult }
  | { type: 'spot-check-failed'; error: string }
  | { type: 'target-started' }
  | { type: 'target-ready'; target: TargetConnection }
  | { type: 'target-failed'; error: string }
  | { type: 'target-reset' }
  | { type: 'preflight-finished'; result: PreflightResult }
  | { type: 'preflight-failed'; error: string }
  | { type: 'plan-started' }
  | { type: 'plan-ready'; plan: PlanSummary }
  | { type: 'plan-failed'; error: string }
  | { type: 'dry-run-shown' }
  | { type: 'allow-partial'; allow: boolean }
  | { type: 'run-started'; at: number }
  | { type: 'run-events'; events: RunOperationEvent[] }
  /** The operator stopped the run (`q`) before its first write: no run happened. */
  | { type: 'run-stopping' }
  | { type: 'run-finished'; outcome: RunOutcome }
  /** Not confirmed: nothing was written; back to the plan. */
  | { type: 'run-cancelled'; text: string }
  | { type: 'run-failed'; error: string }
  | { type: 'verify-started' }
  | { type: 'verify-progress'; progress: VerifyProgress }
  | { type: 'verify-finished'; summary: VerifyOutcome }
  | { type: 'verify-failed'; error: string }
  | { type: 'sign-in-open' }
  | { type: 'sign-in-close' }
  | { type: 'sign-in-started' }
  | { type: 'sign-in-finished'; entry: SignInEntry }
  | { type: 'save-started' }
  | { type: 'save-finished'; path: string }
  | { type: 'save-failed'; error: string };
