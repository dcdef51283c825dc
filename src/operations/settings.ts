// The typed settings of a run, resolved once for both shells: the headless command passes its flags, the wizard
// passes its profile and the target it connected; both come out as the same RunSettings, so an option means the
// same thing wherever it is chosen (flags first, then the profile, then the default).
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseHashingAlgorithmName } from '../hashes/formats.js';
import type { PlanOptions } from '../migration/plan.js';
import { parseDisabledPolicy, profileSwitch } from '../migration/policies.js';
import { DEFAULT_CONCURRENCY } from '../migration/runner.js';
import { parseSlice, type SliceOptions } from '../migration/slice.js';
import { parseVia, type Via } from '../migration/via.js';
import { DEFAULT_STAGED_BATCH, REFERENCE_JOB_INTERVAL_MS } from '../migration/staged-strategy.js';
import { DEFAULT_BULK_IMPORT_INTERVAL_SEC } from '../sandbox/config.js';
import type { LoadedProfile } from '../profiles/index.js';
import type { ValidateOptions } from '../records/validate.js';
import { SIGNIN_SECRET_ENV } from 'auth-migrate-signin/protocol';
import { signerFromEnvironment } from '../signin/run-entry.js';
import { detectFormat, STDIN, type ReadOptions } from '../sources/index.js';
import { resolveSourceOptions, sourceFiles, type SourceOptionValues } from './sources.js';
import {
  resolveTarget,
  SECRET_ENV,
  type ResolvedTarget,
  type SecretFlag,
  type Target,
  type TargetOptionValues,
  type TargetSecrets,
} from './target.js';

/** The flags of `run` as node:util parseArgs gives them (the wizard gives none: its profile holds the same). */
export interface RunOptionValues extends TargetOptionValues, SourceOptionValues {
  journal?: string;
  out?: string;
  concurrency?: string;
  via?: string;
  'batch-size'?: string;
  'job-interval'?: string;
  'keep-source-ids'?: boolean;
  'no-keep-source-ids'?: boolean;
  'update-existing'?: boolean;
  'no-update-existing'?: boolean;
  disabled?: string;
  'scrypt-algorithm-name'?: string;
  'skip-preflight'?: boolean;
  'allow-partial'?: boolean;
  skip?: string;
  limit?: string;
  only?: string[];
}

/** What planning a run needs: the sources, the plan options and, when one is named, the target. */
export interface PlanSettings {
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

export interface RunSettings extends PlanSettings {
  target: Target;
  secrets: TargetSecrets;
  /** Users per upload of `--via bulk-staged`. */
  batchSize: number;
  /** How often the core runs its bulk-import job (`--via bulk-staged` says when it runs next, and when nothing moves). */
  jobIntervalMs: number;
  concurrency: number;
  skipPreflight: boolean;
  /**
   * The command that runs this migration again, without any secret, and the variables to export for the keys
   * this run was given that no profile supplies (operations/rerun.ts).
   */
  rerun: { args: string[]; exports: string[] };
}

export function parseConcurrency(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 512) throw new UsageError(`--concurrency must be a whole number from 1 to 512 (got "${text}")`);
  return n;
}

/** Users per upload of --via bulk-staged: 1 to 10,000 (the core's limit per request, and the default). */
export function parseBatchSize(text: string | undefined): number {
  if (text === undefined) return DEFAULT_STAGED_BATCH;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new UsageError(`--batch-size must be a whole number from 1 to 10000 (got "${text}")`);
  return n;
}

/** The interval of the core's bulk-import job, in ms: --job-interval, else the sandbox's or the reference's. */
export function parseJobInterval(text: string | undefined, sandbox: boolean): number {
  if (text === undefined) return sandbox ? DEFAULT_BULK_IMPORT_INTERVAL_SEC * 1000 : REFERENCE_JOB_INTERVAL_MS;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400)
    throw new UsageError(`--job-interval must be a number of seconds above 0, at most 86400 (got "${text}")`);
  return n * 1000;
}

/** The name sent as hashingAlgorithm for the scrypt variant: one the core reads as that variant. */
export function scryptName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (parseHashingAlgorithmName(name) !== 'external_scrypt') {
    throw new UsageError(`--scrypt-algorithm-name must name the scrypt variant: external_scrypt or firebase_scrypt (got "${name}")`);
  }
  return name.trim();
}

/** The plan options of flags and a profile (verify reads the same ones, so it checks what the run planned). */
export function planOptionsOf(values: RunOptionValues, profile: LoadedProfile['profile'] | undefined): PlanOptions {
  return {
    keepSourceIds: profileSwitch('keep-source-ids', values['keep-source-ids'], values['no-keep-source-ids'], profile?.keepSourceIds),
    updateExisting: profileSwitch('update-existing', values['update-existing'], values['no-update-existing'], profile?.updateExisting),
    disabled: parseDisabledPolicy(values.disabled ?? profile?.disabled),
    scryptAlgorithmName: scryptName(values['scrypt-algorithm-name'] ?? profile?.scryptAlgorithmName),
  };
}

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

export interface ResolveRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The files named on the command line (empty: the profile's). */
  positionals: string[];
  /** The profile already loaded (the wizard's, with the keys typed on its keys screen); else `--profile` is loaded. */
  profile?: LoadedProfile;
  /** The arguments that run this migration again (secrets are taken out of them). */
  rerunArgs: string[];
  /** Settings of a command that only reads the core (verify): migrate-at-sign-in needs no secret there. */
  readOnly?: boolean;
}

/** Whether flags or a profile name a target (a dry run without one plans without looking anything up). */
export const namesTarget = (values: RunOptionValues, o: ResolveRunOptions): boolean =>
  values.core !== undefined ||
  values.sandbox === true ||
  values.store !== undefined ||
  values.profile !== undefined ||
  o.profile !== undefined;

/** The settings of a dry run: the target only when one is named. */
export async function resolvePlanSettings(values: RunOptionValues, o: ResolveRunOptions): Promise<PlanSettings | RunSettings> {
  return namesTarget(values, o) ? resolveRunSettings(values, o) : resolveSettings(values, o, undefined);
}

/** The settings of the sources alone (no target looked at): what validating them needs, as a run would. */
export async function resolveSourceSettings(values: RunOptionValues, o: ResolveRunOptions): Promise<PlanSettings> {
  return resolveSettings(values, o, undefined);
}

export async function resolveRunSettings(values: RunOptionValues, o: ResolveRunOptions): Promise<RunSettings> {
  const resolved = await resolveTarget(values, o.env, o.cwd, o.profile);
  return resolveSettings(values, o, resolved);
}

async function resolveSettings(values: RunOptionValues, o: ResolveRunOptions, resolved: ResolvedTarget): Promise<RunSettings>;
async function resolveSettings(values: RunOptionValues, o: ResolveRunOptions, resolved: undefined): Promise<PlanSettings>;
async function resolveSettings(values: RunOptionValues, o: ResolveRunOptions, resolved: ResolvedTarget | undefined): Promise<PlanSettings> {
  const loaded = resolved?.profile ?? o.profile;
  const profile = loaded?.profile;
  const files = sourceFiles(o.positionals, profile, o.cwd);
  const read = await resolveSourceOptions(values, o.env, loaded);
  const plan: PlanOptions = { ...planOptionsOf(values, profile), unusableHashes: read.unusableHashes };
  const via = parseVia(values.via ?? profile?.via);
  if (via !== 'steps' && plan.updateExisting) {
    throw new UsageError(
      `--update-existing works with --via steps only: --via ${via} imports whole users and never changes one already in the core`,
    );
  }
  const planSettings: PlanSettings = {
    files,
    read,
    plan,
    via,
    slice: parseSlice(values),
    output: {
      journal: values.journal !== undefined ? resolve(o.cwd, values.journal) : undefined,
      out: resolve(o.cwd, values.out ?? '.'),
      label: await runLabel(profile?.name, read.format, files),
    },
    allowPartial: values['allow-partial'] ?? false,
  };
  if (!resolved) return planSettings;
  // A run that writes under migrate-at-sign-in signs each entry: refused before anything is read from the core.
  if (plan.unusableHashes === 'migrate-at-sign-in') {
    const named = profile?.signinSecret?.name;
    const env = o.env[SIGNIN_SECRET_ENV] === undefined && named !== undefined ? { [SIGNIN_SECRET_ENV]: o.env[named] } : o.env;
    if (!o.readOnly || env[SIGNIN_SECRET_ENV] !== undefined) plan.signer = signerFromEnvironment(env, named);
  }
  // The hash config may carry the signer key: a sandbox rehearsal needs it too.
  if (!resolved.secrets.signerKey && read.signerKey) resolved.secrets.signerKey = read.signerKey;
  // A rerun gets every key this run used from the profile, the hash config file it names, or the environment:
  // those the profile does not keep are to be exported (the rerun command never holds a key, nor a reference).
  const used = { 'api-key': resolved.secrets.apiKey, 'license-key': resolved.secrets.licenseKey, 'signer-key': resolved.secrets.signerKey };
  const kept = { 'api-key': 'apiKey', 'license-key': 'licenseKey', 'signer-key': 'signerKey' } as const;
  const signerInHashConfig = values['hash-config'] !== undefined && !values['signer-key'] && !o.env[SECRET_ENV['signer-key']];
  const exports = (Object.keys(SECRET_ENV) as SecretFlag[])
    .filter((f) => used[f] !== undefined && (loaded?.profile.secrets[kept[f]].store ?? 'none') === 'none')
    .filter((f) => !(f === 'signer-key' && signerInHashConfig))
    .map((f) => SECRET_ENV[f]);
  const run: RunSettings = {
    ...planSettings,
    target: resolved.target,
    secrets: resolved.secrets,
    batchSize: parseBatchSize(values['batch-size']),
    jobIntervalMs: parseJobInterval(values['job-interval'] ?? profile?.jobIntervalSec?.toString(), resolved.target.kind === 'sandbox'),
    concurrency: parseConcurrency(values.concurrency, profile?.concurrency ?? DEFAULT_CONCURRENCY),
    skipPreflight: values['skip-preflight'] ?? false,
    rerun: { args: o.rerunArgs, exports },
  };
  return run;
}
