// Saved profiles on disk (conf): a profiles file and a separate secrets file, both readable only by the user (0600),
// neither written through a symbolic link. Paths in a profile are saved absolute, so it works from any folder.
import { chmodSync, existsSync, lstatSync, mkdirSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type Conf from 'conf';
import envPaths from 'env-paths';
import { UserError } from '../errors.js';
import { SECRET_NAMES, type LoadedProfile, type Profile, type SecretName, type Secrets } from './types.js';

type Env = NodeJS.ProcessEnv;
type ProfilesFile = { profiles: Record<string, Profile> };
type SecretsFile = { secrets: Record<string, Secrets> };

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The folder holding both files: $AUTH_MIGRATE_CONFIG_DIR, else the user's config folder (e.g. ~/.config/auth-migrate). */
export function configDir(env: Env = process.env): string {
  return env.AUTH_MIGRATE_CONFIG_DIR || envPaths('auth-migrate', { suffix: '' }).config;
}

export function assertProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new UserError(
      `'${name}' is not a usable profile name: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
    );
  }
}

export function assertEnvName(name: string): void {
  if (!ENV_NAME.test(name))
    throw new UserError(`'${name}' is not an environment variable name: use letters, digits and '_', not starting with a digit.`);
}

/** conf (and its JSON-schema validator) is loaded when a profile is first read or written, not by every command. */
let confClass: Promise<typeof Conf> | undefined;

async function open<T extends Record<string, unknown>>(env: Env, configName: string, defaults: T): Promise<Conf<T>> {
  const ConfClass = await (confClass ??= import('conf').then((m) => m.default));
  const cwd = configDir(env);
  // Owner-only folder when we create it; an existing folder chosen by the operator is left as it is.
  if (!existsSync(cwd)) mkdirSync(cwd, { recursive: true, mode: 0o700 });
  refuseLink(`${cwd}/${configName}.json`); // conf writes its defaults when it opens a file
  try {
    return new ConfClass<T>({
      cwd,
      configName,
      projectName: 'auth-migrate',
      projectSuffix: '',
      defaults,
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      watch: false,
    });
  } catch (err) {
    throw new UserError(`cannot read ${cwd}/${configName}.json (${(err as Error).message}); fix or remove that file.`);
  }
}

function profilesConf(env: Env): Promise<Conf<ProfilesFile>> {
  return open<ProfilesFile>(env, 'profiles', { profiles: {} });
}

function secretsConf(env: Env): Promise<Conf<SecretsFile>> {
  return open<SecretsFile>(env, 'secrets', { secrets: {} });
}

/** A link planted at the path would have conf write (and chmod) its target: refused, as src/files/private.ts does. */
function refuseLink(path: string): void {
  let link = false;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch {
    return; // not there yet: conf creates it
  }
  if (link) {
    throw new UserError(
      `refusing to write ${path}: it is a symbolic link (files holding secrets are never written through a link); remove it or choose another AUTH_MIGRATE_CONFIG_DIR`,
    );
  }
}

/** Write a whole file and make sure it stays owner-only even if it existed with a wider mode. */
function write<T extends Record<string, unknown>>(conf: Conf<T>, key: keyof T & string, value: T[keyof T]): void {
  refuseLink(conf.path);
  conf.set(key, value);
  refuseLink(conf.path);
  chmodSync(conf.path, 0o600);
}

/** The profile with its paths (source files, the sandbox store) absolute, resolved from `cwd` (`~/` from $HOME). */
export function absolutePaths(profile: Profile, cwd: string, env: Env = process.env): Profile {
  const abs = (p: string) => {
    const home = p.startsWith('~/') && env.HOME ? `${env.HOME}/${p.slice(2)}` : p;
    return isAbsolute(home) ? home : resolve(cwd, home);
  };
  const t = profile.target;
  return {
    ...profile,
    sources: profile.sources.map((s) => ({ ...s, path: abs(s.path) })),
    target: t.kind === 'sandbox' && t.store ? { ...t, store: abs(t.store) } : t,
  };
}

export function profilePaths(env: Env = process.env): { dir: string; profiles: string; secrets: string } {
  const dir = configDir(env);
  return { dir, profiles: `${dir}/profiles.json`, secrets: `${dir}/secrets.json` };
}

export async function listProfiles(env: Env = process.env): Promise<Profile[]> {
  const all = (await profilesConf(env)).get('profiles');
  return Object.values(all).sort((a, b) => a.name.localeCompare(b.name));
}

function notFound(name: string): UserError {
  return new UserError(`no profile named '${name}'; \`auth-migrate profiles list\` shows the saved ones.`);
}

/** A profile with its secrets resolved: from the secrets file, or from the named environment variable. */
export async function loadProfile(name: string, env: Env = process.env): Promise<LoadedProfile> {
  const profile = (await profilesConf(env)).get('profiles')[name];
  if (!profile) throw notFound(name);
  const stored = (await secretsConf(env)).get('secrets')[name] ?? {};
  const secrets: Secrets = {};
  const missing: SecretName[] = [];
  for (const key of SECRET_NAMES) {
    const source = profile.secrets?.[key] ?? { store: 'none' };
    const value = source.store === 'file' ? stored[key] : source.store === 'env' ? env[source.name] : undefined;
    if (value !== undefined && value !== '') secrets[key] = value;
    else if (source.store !== 'none') missing.push(key);
  }
  return { profile, secrets, missing };
}

/**
 * Save a profile. `secrets` are written to the secrets file only for the secrets whose source is `file`;
 * a `file` secret not given keeps its stored value; every other secret is removed from the secrets file.
 * Relative paths are saved resolved from `cwd`, so the profile finds its files and store from any folder.
 */
export async function saveProfile(profile: Profile, secrets: Secrets = {}, env: Env = process.env, cwd = process.cwd()): Promise<void> {
  assertProfileName(profile.name);
  profile = absolutePaths(profile, cwd, env);
  for (const key of SECRET_NAMES) {
    const source = profile.secrets[key];
    if (source.store === 'env') assertEnvName(source.name);
  }
  const now = new Date().toISOString();
  const pc = await profilesConf(env);
  const profiles = { ...pc.get('profiles') };
  const previous = profiles[profile.name];
  profiles[profile.name] = { ...profile, createdAt: previous?.createdAt ?? profile.createdAt ?? now, updatedAt: now };
  write(pc, 'profiles', profiles);

  const sc = await secretsConf(env);
  const all = { ...sc.get('secrets') };
  const kept: Secrets = {};
  for (const key of SECRET_NAMES) {
    if (profile.secrets[key].store !== 'file') continue;
    const value = secrets[key] ?? all[profile.name]?.[key];
    if (value !== undefined && value !== '') kept[key] = value;
  }
  if (Object.keys(kept).length > 0) all[profile.name] = kept;
  else delete all[profile.name];
  write(sc, 'secrets', all);
}

export async function deleteProfile(name: string, env: Env = process.env): Promise<void> {
  const pc = await profilesConf(env);
  const profiles = { ...pc.get('profiles') };
  if (!profiles[name]) throw notFound(name);
  delete profiles[name];
  write(pc, 'profiles', profiles);
  const sc = await secretsConf(env);
  const all = { ...sc.get('secrets') };
  if (all[name]) {
    delete all[name];
    write(sc, 'secrets', all);
  }
}

async function copyProfile(from: string, to: string, env: Env, removeOld: boolean): Promise<void> {
  assertProfileName(to);
  const pc = await profilesConf(env);
  const profiles = { ...pc.get('profiles') };
  const source = profiles[from];
  if (!source) throw notFound(from);
  if (profiles[to]) throw new UserError(`a profile named '${to}' already exists; choose another name or delete it first.`);
  const now = new Date().toISOString();
  profiles[to] = { ...structuredClone(source), name: to, createdAt: removeOld ? source.createdAt : now, updatedAt: now };
  if (removeOld) delete profiles[from];
  write(pc, 'profiles', profiles);
  const sc = await secretsConf(env);
  const all = { ...sc.get('secrets') };
  if (all[from]) {
    all[to] = { ...all[from] };
    if (removeOld) delete all[from];
    write(sc, 'secrets', all);
  }
}

export async function renameProfile(from: string, to: string, env: Env = process.env): Promise<void> {
  await copyProfile(from, to, env, true);
}

export async function duplicateProfile(from: string, to: string, env: Env = process.env): Promise<void> {
  await copyProfile(from, to, env, false);
}
