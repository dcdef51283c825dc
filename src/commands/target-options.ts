// The command-line options of a target and of the sources (node:util parseArgs definitions), shared by run,
// verify, rollback and validate, and the target they name: flags, then the environment, then the profile (the
// typed Target of src/operations/target.ts; the operations never see these flags).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import type { LoadedProfile } from '../profiles/index.js';
import {
  DEFAULT_SANDBOX_STORE,
  SECRET_ENV,
  type ResolvedTarget,
  type SecretFlag,
  type Target,
  type TargetSecrets,
} from '../operations/target.js';

export {
  clientFor,
  connectTarget,
  DEFAULT_SANDBOX_STORE,
  describeTarget,
  RUN_RETRY,
  SECRET_ENV,
  type Connection,
  type ConnectOptions,
  type ResolvedTarget,
  type SecretFlag,
  type Target,
  type TargetSecrets,
} from '../operations/target.js';

export interface TargetOptionValues {
  core?: string;
  sandbox?: boolean;
  store?: string;
  'api-key'?: string;
  'license-key'?: string;
  'signer-key'?: string;
  tenant?: string;
  app?: string;
  profile?: string;
  /** A PEM file of the CA (or the certificate) to trust for an https core. */
  ca?: string;
}

/** The target flags that name `target` (a journal's, for a command given none). */
export function flagsOfTarget(target: Target): TargetOptionValues {
  const scope = {
    ...(target.tenant !== undefined ? { tenant: target.tenant } : {}),
    ...(target.app !== undefined ? { app: target.app } : {}),
  };
  return target.kind === 'sandbox' ? { sandbox: true, store: target.store, ...scope } : { core: target.url, ...scope };
}

/** The target and keys of flags, the environment and a profile (`loaded`, or the one `--profile` names). */
export async function resolveTarget(
  values: TargetOptionValues,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
  loaded?: LoadedProfile,
): Promise<ResolvedTarget> {
  const profile =
    loaded ?? (values.profile !== undefined ? await (await import('../profiles/index.js')).loadProfile(values.profile, env) : undefined);
  const secrets = resolveSecrets(values, env, profile);
  if (values.core !== undefined && values.sandbox) throw new UsageError('give either --core URL or --sandbox, not both');
  if (values.store !== undefined && values.core !== undefined)
    throw new UsageError('--store goes with --sandbox (the sandbox store file), not with --core');
  const pTarget = profile?.profile.target;
  const tenant = values.tenant ?? (pTarget?.kind === 'remote' ? pTarget.tenant : undefined);
  const app = values.app ?? (pTarget?.kind === 'remote' ? pTarget.app : undefined);
  let target: Target;
  if (values.core !== undefined) target = { kind: 'remote', url: values.core, tenant, app };
  else if (values.sandbox || values.store !== undefined)
    target = { kind: 'sandbox', store: resolve(cwd, values.store ?? DEFAULT_SANDBOX_STORE), tenant, app };
  else if (pTarget?.kind === 'remote') target = { kind: 'remote', url: pTarget.url, tenant, app };
  else if (pTarget?.kind === 'sandbox')
    target = { kind: 'sandbox', store: resolve(cwd, pTarget.store ?? DEFAULT_SANDBOX_STORE), tenant, app };
  else throw new UsageError('say where to migrate: --core URL (a running core) or --sandbox (a local rehearsal core)');
  if (target.kind === 'remote' && !/^https?:\/\//.test(target.url)) {
    throw new UsageError(`--core "${target.url}" must be a URL such as http://localhost:3567`);
  }
  if (values.ca !== undefined) {
    if (target.kind !== 'remote') throw new UsageError('--ca goes with an https core (--core https://...), not with the sandbox');
    try {
      target.ca = await readFile(resolve(cwd, values.ca), 'utf8');
    } catch (err) {
      throw new UsageError(`--ca ${values.ca}: ${(err as Error).message}`);
    }
  }
  return { target, secrets, profile };
}

/** The keys: a flag, else the AUTH_MIGRATE_* variable, else the profile's. */
export function resolveSecrets(values: TargetOptionValues, env: NodeJS.ProcessEnv, profile?: LoadedProfile): TargetSecrets {
  const pick = (flag: SecretFlag, fromProfile: string | undefined): string | undefined =>
    nonEmpty(values[flag]) ?? nonEmpty(env[SECRET_ENV[flag]]) ?? nonEmpty(fromProfile);
  return {
    apiKey: pick('api-key', profile?.secrets.apiKey),
    licenseKey: pick('license-key', profile?.secrets.licenseKey),
    signerKey: pick('signer-key', profile?.secrets.signerKey),
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

/** node:util parseArgs definitions of the target options. */
export const TARGET_OPTIONS = {
  core: { type: 'string' },
  sandbox: { type: 'boolean' },
  store: { type: 'string' },
  'api-key': { type: 'string' },
  'license-key': { type: 'string' },
  'signer-key': { type: 'string' },
  tenant: { type: 'string' },
  app: { type: 'string' },
  profile: { type: 'string' },
  ca: { type: 'string' },
} as const;

/** The reader options of run and verify (validate adds --signer-key: source-options.ts). */
export const SOURCE_OPTIONS = {
  format: { type: 'string' },
  'hash-config': { type: 'string' },
  'provider-map': { type: 'string' },
  /** How validation treats users whose hash the core cannot take (operations/sources.ts). */
  'unusable-hashes': { type: 'string' },
} as const;
