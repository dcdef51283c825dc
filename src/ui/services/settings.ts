// The wizard's input as the operations' settings: its profile (as the screens left it) and the keys typed on the
// keys screen go through the same resolution as `run`'s flags (operations/settings.ts), so an option cannot mean
// one thing headless and another here. The target is the one the target screen connected.
import { SIGNIN_SECRET_ENV } from 'auth-migrate-signin/protocol';
import { emptyProfile, type LoadedProfile, type Profile } from '../../profiles/index.js';
import { resolveRunSettings, type RunOptionValues, type RunSettings } from '../../operations/settings.js';
import { clientFor, type ConnectOptions, type Connection } from '../../operations/target.js';
import type { MigrationInput, OpenedProfile, TargetConnection } from './types.js';

/** The profile an input describes (the wizard builds its input from the open profile: this goes back). */
export function profileOf(input: MigrationInput, name: string): Profile {
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

export async function settingsOf(
  input: MigrationInput,
  target: TargetConnection,
  o: { profileName: string; cwd: string; out: string; readOnly?: boolean },
): Promise<RunSettings> {
  const profile = profileOf(input, o.profileName);
  const loaded: LoadedProfile = {
    profile,
    secrets: { apiKey: target.apiKey, licenseKey: target.licenseKey, signerKey: input.signerKey },
    missing: [],
  };
  const values: RunOptionValues = target.sandbox
    ? { sandbox: true, store: target.sandbox.storePath }
    : { core: target.url, tenant: target.tenant, app: target.app };
  values.out = o.out;
  if (input.allowPartial) values['allow-partial'] = true;
  // The keys come from the keys screen, never from this process's AUTH_MIGRATE_* variables: the sign-in secret too
  // (AUTH_MIGRATE_SIGNIN_SECRET only pre-fills its field when the profile is opened: openedProfile below).
  const env = input.signInSecret ? { [SIGNIN_SECRET_ENV]: input.signInSecret } : {};
  // A plan, a preflight or a verify writes nothing: the sign-in secret is asked for only by the run itself.
  const settings = await resolveRunSettings(values, {
    cwd: o.cwd,
    env,
    positionals: [],
    profile: loaded,
    rerunArgs: [],
    ...(o.readOnly ? { readOnly: true } : {}),
  });
  settings.rerun.args = ['--profile', o.profileName, ...targetFlags(target), ...(input.allowPartial ? ['--allow-partial'] : [])];
  // The rerun is told to export the sign-in secret too (its name only: the value is never on a command line).
  if (settings.plan.signer && !settings.rerun.exports.includes(SIGNIN_SECRET_ENV)) settings.rerun.exports.push(SIGNIN_SECRET_ENV);
  return settings;
}

/** The wizard's connection as an operation uses it: a client of the core (or of the sandbox the wizard keeps running). */
export function connectionTo(target: TargetConnection, settings: RunSettings, options: ConnectOptions): Connection {
  const client = clientFor(target.url, settings.target, settings.secrets, options);
  return {
    client,
    url: target.url,
    ...(target.sandbox ? { sandbox: { url: target.url, storePath: target.sandbox.storePath } } : {}),
    // The sandbox lives as long as the target screen's choice: the wizard stops it, not the operation.
    close: async () => client.close(),
  };
}

/**
 * A loaded profile as the wizard opens it: the sign-in secret pre-filled from AUTH_MIGRATE_SIGNIN_SECRET, else from
 * the variable the profile names (as `run` reads it); that variable unset is a key missing, as for the api key.
 */
export function openedProfile(loaded: LoadedProfile, env: NodeJS.ProcessEnv): OpenedProfile {
  const named = loaded.profile.signinSecret?.name;
  const value = env[SIGNIN_SECRET_ENV] || (named !== undefined ? env[named] : undefined) || undefined;
  return {
    ...loaded,
    missing: [...loaded.missing, ...(named !== undefined && value === undefined ? (['signInSecret'] as const) : [])],
    ...(value !== undefined ? { signInSecret: value } : {}),
  };
}
