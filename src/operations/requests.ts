// The typed requests the operations take: camelCase, parsed and checked by the shell that built them
// (commands/run-request.ts from flags, then environment, then profile, then defaults; the wizard from its profile
// directly, ui/services/settings.ts). Invariant: nothing below the shells sees a command-line flag object; what
// both shells need to build a request the same way (defaults, the run folder's label, the sign-in signer, the
// variables a rerun must export) is here, free of flags.
import { SIGNIN_SECRET_ENV } from 'auth-migrate-signin/protocol';
import { InvalidSetting } from '../errors.js';
import { parseHashingAlgorithmName } from '../hashes/formats.js';
import type { PlanOptions } from '../engine/plan/plan.js';
import type { SliceOptions } from '../engine/plan/slice.js';
import { DEFAULT_STAGED_BATCH, REFERENCE_JOB_INTERVAL_MS } from '../engine/strategies/staged/strategy.js';
import type { Via } from '../engine/strategies/via.js';
import type { LoadedProfile } from '../profiles/index.js';
import type { ValidateOptions } from '../records/validate.js';
import { DEFAULT_BULK_IMPORT_INTERVAL_SEC } from '../sandbox/config.js';
import { signerFromEnvironment } from '../signin/run-entry.js';
import { detectFormat, STDIN, type ReadOptions } from '../sources/index.js';
import { SECRET_ENV, type SecretFlag, type Target, type TargetSecrets } from './target.js';

export { DEFAULT_CONCURRENCY } from '../engine/runner.js';

/** What planning a run needs: the sources, the plan options and, when one is named, the target. */
export interface PlanRequest {
  /** The export files, absolute (`-` is standard input). */
  files: string[];
  read: ReadOptions & ValidateOptions;
  plan: PlanOptions;
  via: Via;
  slice: SliceOptions;
  /** Undefined for a dry run that names no target (nothing is looked up then). */
  target?: Target;
  /** Where the run's folder goes: `journal` names the journal itself; else a folder named for `label` under `out`. */
  output: { journal?: string; out: string; label: string };
  /** Go on although a whole class of users would be dropped for one missing setting (operations/partial.ts). */
  allowPartial: boolean;
}

/** A run (and what a sync, a verify and the wizard's undo start from). */
export interface RunRequest extends PlanRequest {
  target: Target;
  secrets: TargetSecrets;
  /** Users per upload of `--via bulk-staged`. */
  batchSize: number;
  /** How often the core runs its bulk-import job (`--via bulk-staged` says when it runs next, and when nothing moves). */
  jobIntervalMs: number;
  /** `--via bulk-staged`: how long the job may show no move, with users waiting, before the run stops (default: job.ts). */
  stallAfterMs?: number;
  concurrency: number;
  skipPreflight: boolean;
  /**
   * The command that runs this migration again, without any secret, and the variables to export for the keys
   * this run was given that no profile supplies (operations/rerun.ts).
   */
  rerun: { args: string[]; exports: string[] };
}

/** A sync: a run's request, with which earlier run it brings up to date and whether gone users go. */
export interface SyncRequest extends RunRequest {
  sync: SyncOptions;
}

export interface SyncOptions {
  /** The earlier run's journal (default: the newest run folder of this target under the output folder). */
  fromJournal?: string;
  removeMissing: boolean;
  /** Where a relative --from-journal is read from (default: the output folder). */
  cwd?: string;
}

/** A verify: what the run read and where it wrote, and what to check besides the users. */
export interface VerifyRequest extends Pick<RunRequest, 'files' | 'read' | 'plan' | 'slice' | 'target' | 'output' | 'concurrency'> {
  /** Try each TOTP device with a code from its source secret (default: on the sandbox only; a real core counts attempts). */
  totpCodes?: boolean;
  credentials?: Array<{ email: string; password: string; line: number }>;
  /** Users not ok kept in the outcome (the rest are counted): memory stays bounded on a million missing users. */
  keep?: number;
}

/** An undo of a run (or a sync) from its journal. */
export interface RollbackRequest {
  /** The run's journal (its retired name once an undo began is found too). */
  journal: string;
  /** The target given; undefined: the run's own, as its journal names it. */
  target?: Target;
  force: boolean;
  concurrency: number;
  /** Ask on the sandbox too (the wizard's `u`: an undo there is one key away); a real core is always asked about. */
  confirmSandbox?: boolean;
  /** Who holds the journal's lock meanwhile (named to a run that finds it taken). */
  by: string;
  /** The decisions only: nothing is changed. */
  dryRun: boolean;
}

/** Users per upload of --via bulk-staged when none is chosen (the core's limit per request). */
export const DEFAULT_BATCH_SIZE = DEFAULT_STAGED_BATCH;

/** The interval of the core's bulk-import job when none is given: the sandbox's, or the reference core's. */
export const defaultJobIntervalMs = (target: Target): number =>
  target.kind === 'sandbox' ? DEFAULT_BULK_IMPORT_INTERVAL_SEC * 1000 : REFERENCE_JOB_INTERVAL_MS;

/**
 * What a run folder is named after: the profile, else the sources' format (given, or detected from the first file),
 * so a Clerk run and a Supabase run are told apart at a glance (`clerk-2026-…`, `supabase-2026-…`).
 */
export async function runLabel(profileName: string | undefined, format: string | undefined, files: string[]): Promise<string> {
  if (profileName) return profileName;
  if (format) return format;
  const first = files[0];
  if (first === undefined || first === STDIN) return 'run';
  return detectFormat(first).catch(() => 'run');
}

/**
 * The variable the sign-in secret is read from: AUTH_MIGRATE_SIGNIN_SECRET when it is set, else the one the profile
 * names (else AUTH_MIGRATE_SIGNIN_SECRET, which a refusal names). The one choice of it: the run's signer, the rerun's
 * export and the wizard's pre-filled field all follow it.
 */
export function signInSecretVariable(env: NodeJS.ProcessEnv, profile: LoadedProfile['profile'] | undefined): string {
  const named = profile?.signinSecret?.name;
  return env[SIGNIN_SECRET_ENV] === undefined && named !== undefined ? named : SIGNIN_SECRET_ENV;
}

/**
 * A run that writes under migrate-at-sign-in signs each entry: its signer, from the secret's variable
 * (signInSecretVariable); refused (a UserError) before anything is read from the core. A read-only request (verify)
 * needs none, and takes it when given.
 */
export function signInSigner(plan: PlanOptions, env: NodeJS.ProcessEnv, profile: LoadedProfile['profile'] | undefined, readOnly: boolean) {
  if (plan.unusableHashes !== 'migrate-at-sign-in') return undefined;
  const secret = env[signInSecretVariable(env, profile)];
  return !readOnly || secret !== undefined
    ? signerFromEnvironment({ [SIGNIN_SECRET_ENV]: secret }, profile?.signinSecret?.name)
    : undefined;
}

/** The variable a rerun must export for the sign-in secret the signer took (signInSecretVariable), if any. */
export function signInExport(signer: unknown, env: NodeJS.ProcessEnv, profile: LoadedProfile['profile'] | undefined): string[] {
  return signer ? [signInSecretVariable(env, profile)] : [];
}

/**
 * The variables a rerun must export: every key this run used that the profile does not keep (the rerun command
 * never holds a key, nor a reference). `signerInHashConfig`: the signer key came from a hash config file, which the
 * rerun reads again.
 */
export function rerunExports(used: TargetSecrets, profile: LoadedProfile | undefined, signerInHashConfig: boolean): string[] {
  const keys = { 'api-key': used.apiKey, 'license-key': used.licenseKey, 'signer-key': used.signerKey };
  const kept = { 'api-key': 'apiKey', 'license-key': 'licenseKey', 'signer-key': 'signerKey' } as const;
  return (Object.keys(SECRET_ENV) as SecretFlag[])
    .filter((f) => keys[f] !== undefined && (profile?.profile.secrets[kept[f]].store ?? 'none') === 'none')
    .filter((f) => !(f === 'signer-key' && signerInHashConfig))
    .map((f) => SECRET_ENV[f]);
}

/** The name sent as hashingAlgorithm for the scrypt variant: one the core reads as that variant. */
export function scryptAlgorithmName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (parseHashingAlgorithmName(name) !== 'external_scrypt')
    throw new InvalidSetting('scrypt-algorithm-name', `must name the scrypt variant: external_scrypt or firebase_scrypt (got "${name}")`);
  return name.trim();
}

/** Replacing hashes of users already in the core is a per-user step: the other paths never change such a user. */
export function checkUpdateExisting(via: Via, plan: PlanOptions): void {
  if (via !== 'steps' && plan.updateExisting)
    throw new InvalidSetting(
      'update-existing',
      `works with --via steps only: --via ${via} imports whole users and never changes one already in the core`,
    );
}
