// The wizard's input as the operations' settings: its profile (as the screens left it) and the keys typed on the
// keys screen go through the same resolution as `run`'s flags (operations/settings.ts), so an option cannot mean
// one thing headless and another here. The target is the one the target screen connected.
import { SIGNIN_SECRET_ENV } from 'auth-migrate-signin/protocol';
import { emptyProfile, type LoadedProfile, type Profile } from '../../profiles/index.js';
import { resolveRunSettings, type RunOptionValues, type RunSettings } from '../../operations/settings.js';
import { clientFor, type ConnectOptions, type Connection } from '../../operations/target.js';
import type { MigrationInput, TargetConnection } from './types.js';

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
  // The keys come from the keys screen (the profile's secrets), never from this process's AUTH_MIGRATE_* variables;
  // the one exception, until the keys screen has a field for it, is the sign-in migration's secret.
  const env = process.env[SIGNIN_SECRET_ENV] !== undefined ? { [SIGNIN_SECRET_ENV]: process.env[SIGNIN_SECRET_ENV] } : {};
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
