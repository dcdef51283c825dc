// The typed request of `run` (and of verify, which reads the same options) from the command line: flags first, then
// the environment, then the profile, then the defaults (operations/requests.ts). Every usage error about a flag is
// thrown here (or in the option files beside it); the operations take the RunRequest and never see a flag.
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import type { PlanOptions } from '../engine/plan/plan.js';
import { parseDisabledPolicy } from '../engine/plan/policies.js';
import { parseVia } from '../engine/strategies/via.js';
import {
  checkUpdateExisting,
  DEFAULT_BATCH_SIZE,
  DEFAULT_CONCURRENCY,
  defaultJobIntervalMs,
  rerunExports,
  runLabel,
  scryptAlgorithmName,
  signInExport,
  signInSigner,
  type PlanRequest,
  type RunRequest,
} from '../operations/requests.js';
import { SECRET_ENV, type ResolvedTarget } from '../operations/target.js';
import type { LoadedProfile } from '../profiles/index.js';
import { parseSlice, profileSwitch, usage } from './flag-values.js';
import { resolveSourceOptions, sourceFiles, type SourceOptionValues } from './source-options.js';
import { resolveTarget, type TargetOptionValues } from './target-options.js';

/** The flags of `run` as node:util parseArgs gives them. */
export interface RunOptionValues extends TargetOptionValues, SourceOptionValues {
  journal?: string;
  out?: string;
  concurrency?: string;
  via?: string;
  'batch-size'?: string;
  'job-interval'?: string;
  'stall-after'?: string;
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

export function parseConcurrency(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 512) throw new UsageError(`--concurrency must be a whole number from 1 to 512 (got "${text}")`);
  return n;
}

/** Users per upload of --via bulk-staged: 1 to 10,000 (the core's limit per request, and the default). */
export function parseBatchSize(text: string | undefined): number {
  if (text === undefined) return DEFAULT_BATCH_SIZE;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new UsageError(`--batch-size must be a whole number from 1 to 10000 (got "${text}")`);
  return n;
}

/** A flag's SECONDS (above 0, at most `max`) in ms; undefined when the flag was not given. */
function secondsFlag(flag: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || n > max)
    throw new UsageError(`--${flag} must be a number of seconds above 0, at most ${max} (got "${text}")`);
  return n * 1000;
}

/** The interval of the core's bulk-import job, in ms: --job-interval (seconds), else the target's default. */
export function parseJobInterval(text: string | undefined, fallbackMs: number): number {
  return secondsFlag('job-interval', text, 86_400) ?? fallbackMs;
}

/** --stall-after SECONDS, in ms; absent, the job's watcher takes two intervals and a margin, at least a minute. */
export function parseStallAfter(text: string | undefined): number | undefined {
  return secondsFlag('stall-after', text, 7 * 86_400);
}

/** The plan options of flags and a profile (verify reads the same ones, so it checks what the run planned). */
export function planOptionsOf(values: RunOptionValues, profile: LoadedProfile['profile'] | undefined): PlanOptions {
  return {
    keepSourceIds: profileSwitch('keep-source-ids', values['keep-source-ids'], values['no-keep-source-ids'], profile?.keepSourceIds),
    updateExisting: profileSwitch('update-existing', values['update-existing'], values['no-update-existing'], profile?.updateExisting),
    disabled: usage('--disabled', () => parseDisabledPolicy(values.disabled ?? profile?.disabled)),
    scryptAlgorithmName: usage('--scrypt-algorithm-name', () =>
      scryptAlgorithmName(values['scrypt-algorithm-name'] ?? profile?.scryptAlgorithmName),
    ),
  };
}

export interface ResolveRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The files named on the command line (empty: the profile's). */
  positionals: string[];
  /** A profile already loaded (else the one `--profile` names is loaded). */
  profile?: LoadedProfile;
  /** The arguments that run this migration again (secrets are taken out of them). */
  rerunArgs: string[];
  /** A command that only reads the core (verify): migrate-at-sign-in needs no secret there. */
  readOnly?: boolean;
}

/** Whether flags name a target (a dry run without one plans without looking anything up). */
export const namesTarget = (values: RunOptionValues, o: ResolveRunOptions): boolean =>
  values.core !== undefined ||
  values.sandbox === true ||
  values.store !== undefined ||
  values.profile !== undefined ||
  o.profile !== undefined;

/** The request of a dry run: the target only when one is named. */
export async function planRequestOf(values: RunOptionValues, o: ResolveRunOptions): Promise<PlanRequest | RunRequest> {
  return namesTarget(values, o) ? runRequestOf(values, o) : sourcesRequestOf(values, o, o.profile);
}

export async function runRequestOf(values: RunOptionValues, o: ResolveRunOptions): Promise<RunRequest> {
  const resolved = await resolveTarget(values, o.env, o.cwd, o.profile);
  const plan = await sourcesRequestOf(values, o, resolved.profile);
  return { ...plan, ...runPartOf(values, o, resolved, plan) };
}

/** The sources, plan and output of flags over a profile (what validating and planning need). */
async function sourcesRequestOf(values: RunOptionValues, o: ResolveRunOptions, loaded: LoadedProfile | undefined): Promise<PlanRequest> {
  const profile = loaded?.profile;
  const files = sourceFiles(o.positionals, profile, o.cwd);
  const read = await resolveSourceOptions(values, o.env, loaded);
  const plan: PlanOptions = { ...planOptionsOf(values, profile), unusableHashes: read.unusableHashes };
  const via = usage('--via', () => parseVia(values.via ?? profile?.via));
  usage('--update-existing', () => checkUpdateExisting(via, plan));
  return {
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
}

/** What a run adds to its plan: the target and keys, the signer, the knobs with their defaults, the rerun. */
function runPartOf(values: RunOptionValues, o: ResolveRunOptions, resolved: ResolvedTarget, planned: PlanRequest) {
  const loaded = resolved.profile;
  const signer = signInSigner(planned.plan, o.env, loaded?.profile, o.readOnly === true);
  if (signer) planned.plan.signer = signer;
  // The hash config may carry the signer key: a sandbox rehearsal needs it too.
  if (!resolved.secrets.signerKey && planned.read.signerKey) resolved.secrets.signerKey = planned.read.signerKey;
  const signerInHashConfig = values['hash-config'] !== undefined && !values['signer-key'] && !o.env[SECRET_ENV['signer-key']];
  return {
    target: resolved.target,
    secrets: resolved.secrets,
    batchSize: parseBatchSize(values['batch-size']),
    jobIntervalMs: parseJobInterval(
      values['job-interval'] ?? loaded?.profile.jobIntervalSec?.toString(),
      defaultJobIntervalMs(resolved.target),
    ),
    stallAfterMs: parseStallAfter(values['stall-after']),
    concurrency: parseConcurrency(values.concurrency, loaded?.profile.concurrency ?? DEFAULT_CONCURRENCY),
    skipPreflight: values['skip-preflight'] ?? false,
    rerun: {
      args: o.rerunArgs,
      // The sign-in secret's variable is named too (never its value): the resumed run needs it as this one did.
      exports: [...rerunExports(resolved.secrets, loaded, signerInHashConfig), ...signInExport(signer, o.env, loaded?.profile)],
    },
  };
}

/** The request of the sources alone (no target looked at): what validating them needs, as a run would. */
export const sourcesRequest = (values: RunOptionValues, o: ResolveRunOptions): Promise<PlanRequest> =>
  sourcesRequestOf(values, o, o.profile);
