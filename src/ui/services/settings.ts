// The wizard's input as the operations' typed requests, built from its profile directly (the screens' choices,
// the keys typed on the keys screen, the target the target screen connected), with the same defaults and checks
// as the command line's (operations/requests.ts), so an option cannot mean one thing headless and another here.
// No flag object is made up on the way.
import { resolve } from 'node:path';
import { SIGNIN_SECRET_ENV } from 'auth-migrate-signin/protocol';
import { UserError } from '../../errors.js';
import { parseDisabledPolicy, parseUnusableHashPolicy } from '../../engine/plan/policies.js';
import { parseVia } from '../../engine/strategies/via.js';
import { emptyProfile, type LoadedProfile, type Profile } from '../../profiles/index.js';
import {
  checkUpdateExisting,
  DEFAULT_BATCH_SIZE,
  DEFAULT_CONCURRENCY,
  defaultJobIntervalMs,
  rerunExports,
  runLabel,
  signInExport,
  scryptAlgorithmName,
  signInSecretVariable,
  signInSigner,
  type PlanRequest,
  type RunRequest,
} from '../../operations/requests.js';
import { profileFiles, profileReadOptions, withSignerKey } from '../../operations/sources.js';
import { clientFor, type ConnectOptions, type Connection, type Target, type TargetSecrets } from '../../operations/target.js';
import type { ReadOptions } from '../../sources/index.js';
import type { ValidateOptions } from '../../records/validate.js';
import type { OpenedProfile, TargetConnection, WizardInput } from './types.js';

/** The profile an input describes (the wizard builds its input from the open profile: this goes back). */
export function profileOf(input: WizardInput, name: string): Profile {
  return {
    ...emptyProfile(name),
    sources: input.sources,
    hashConfig: input.hashConfig,
    providerMap: input.providerMap,
    keepSourceIds: input.keepSourceIds,
    updateExisting: input.updateExisting,
    disabled: input.disabled,
    unusableHashes: input.unusableHashes,
    scryptAlgorithmName: input.scryptAlgorithmName,
    concurrency: input.concurrency,
    via: input.via,
    jobIntervalSec: input.jobIntervalSec,
    ...(input.secretStores ? { secrets: input.secretStores } : {}),
  };
}

/** The target flags of a connection: what `run` would be given to reach the same core (or sandbox store). */
export function targetFlags(target: TargetConnection): string[] {
  if (target.sandbox) return ['--sandbox', '--store', target.sandbox.storePath];
  return ['--core', target.url, ...(target.tenant ? ['--tenant', target.tenant] : []), ...(target.app ? ['--app', target.app] : [])];
}

const nonEmpty = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);

/** The sources, plan and output of the input (what validating and planning need; no target looked at). */
export async function planRequestOf(input: WizardInput, o: { profileName: string; cwd: string; out: string }): Promise<PlanRequest> {
  const profile = profileOf(input, o.profileName);
  const files = profileFiles(profile, o.cwd);
  if (files.length === 0) throw new UserError('choose at least one export file');
  const read: ReadOptions & ValidateOptions = profileReadOptions(profile);
  // Left undefined when the profile does not choose (it means skip): a run refuses to leave every such user out
  // for a setting nobody chose (operations/partial.ts).
  if (profile.unusableHashes !== undefined) read.unusableHashes = parseUnusableHashPolicy(profile.unusableHashes);
  withSignerKey(read, [
    [read.hashConfig?.signerKey, 'the hash config'],
    [input.signerKey, `profile ${o.profileName}`],
  ]);
  const plan = {
    keepSourceIds: profile.keepSourceIds ?? false,
    updateExisting: profile.updateExisting ?? false,
    disabled: parseDisabledPolicy(profile.disabled),
    scryptAlgorithmName: scryptAlgorithmName(profile.scryptAlgorithmName),
    unusableHashes: read.unusableHashes,
  };
  const via = parseVia(profile.via);
  checkUpdateExisting(via, plan);
  const output = { out: resolve(o.cwd, o.out), label: await runLabel(o.profileName, read.format, files) };
  return { files, read, plan, via, slice: {}, output, allowPartial: input.allowPartial ?? false };
}

export async function settingsOf(
  input: WizardInput,
  target: TargetConnection,
  o: { profileName: string; cwd: string; out: string; readOnly?: boolean },
): Promise<RunRequest> {
  const planned = await planRequestOf(input, o);
  const loaded: LoadedProfile = { profile: profileOf(input, o.profileName), secrets: {}, missing: [] };
  const where: Target = target.sandbox
    ? { kind: 'sandbox', store: resolve(o.cwd, target.sandbox.storePath), tenant: undefined, app: undefined }
    : { kind: 'remote', url: target.url, tenant: target.tenant, app: target.app };
  // The keys come from the keys screen, never from this process's AUTH_MIGRATE_* variables (the hash config's
  // signer key fills in for a sandbox rehearsal).
  const secrets: TargetSecrets = {
    apiKey: nonEmpty(target.apiKey),
    licenseKey: nonEmpty(target.licenseKey),
    signerKey: nonEmpty(input.signerKey) ?? planned.read.signerKey,
  };
  // The sign-in secret comes from its field on the keys screen too (AUTH_MIGRATE_SIGNIN_SECRET only pre-fills it
  // when the profile is opened: openedProfile below). A plan, a preflight or a verify writes nothing: the secret is
  // asked for only by the run itself.
  const env = input.signInSecret ? { [SIGNIN_SECRET_ENV]: input.signInSecret } : {};
  const signer = signInSigner(planned.plan, env, loaded.profile, o.readOnly === true);
  if (signer) planned.plan.signer = signer;
  return {
    ...planned,
    target: where,
    secrets,
    batchSize: DEFAULT_BATCH_SIZE,
    jobIntervalMs: input.jobIntervalSec !== undefined ? input.jobIntervalSec * 1000 : defaultJobIntervalMs(where),
    concurrency: input.concurrency ?? DEFAULT_CONCURRENCY,
    skipPreflight: false,
    rerun: {
      args: ['--profile', o.profileName, ...targetFlags(target), ...(input.allowPartial ? ['--allow-partial'] : [])],
      // The rerun is told to export the sign-in secret too (its name only: the value is never on a command line).
      exports: [...rerunExports(secrets, loaded, false), ...signInExport(signer, env, loaded.profile)],
    },
  };
}

/**
 * A loaded profile as the wizard opens it: the sign-in secret pre-filled from the variable `run` reads it from
 * (requests.ts signInSecretVariable); the variable a profile names unset is a key missing, as for the api key.
 */
export function openedProfile(loaded: LoadedProfile, env: NodeJS.ProcessEnv): OpenedProfile {
  const named = loaded.profile.signinSecret?.name;
  const value = env[signInSecretVariable(env, loaded.profile)] || undefined;
  return {
    ...loaded,
    missing: [...loaded.missing, ...(named !== undefined && value === undefined ? (['signInSecret'] as const) : [])],
    ...(value !== undefined ? { signInSecret: value } : {}),
  };
}

/** The wizard's connection as an operation uses it: a client of the core (or of the sandbox the wizard keeps running). */
export function connectionTo(target: TargetConnection, settings: RunRequest, options: ConnectOptions): Connection {
  const client = clientFor(target.url, settings.target, settings.secrets, options);
  return {
    client,
    url: target.url,
    ...(target.sandbox ? { sandbox: { url: target.url, storePath: target.sandbox.storePath } } : {}),
    // The sandbox lives as long as the target screen's choice: the wizard stops it, not the operation.
    close: async () => client.close(),
  };
}
