// Auth0 readers: the password-hash export (NDJSON or a JSON array) and the user export (NDJSON, often .gz),
// joined by user id (`auth0|<alt_id or _id>`): the password side is loaded into a map, the user export streamed.
import type { CanonicalThirdParty, CanonicalUser, RecordOrigin, SourceRecord } from '../records/types.js';
import type { SourceItem } from './index.js';
import { addProblem, arr, bool, isObject, sourceIdOf, str, type FieldContext } from './fields.js';
import { readStart } from './input.js';
import { notAnObject, readJsonValues } from './json-values.js';
import type { ProviderLookup } from './providers.js';
import { addRoles, keepMetaObject, keepMetaString, readRoleNames } from './profile.js';
import type { SourceFindings } from './findings.js';

export type Auth0FileKind = 'passwords' | 'users';

const PASSWORDS_MISSING = {
  rule: 'companion.missing',
  loses: 'their password (database users, auth0|...)',
  because: 'the user export holds no password hashes, and no password-hash export was given',
  fix: 'give the password-hash export Auth0 support sends (NDJSON) with the user export, or run with --allow-partial to import them without passwords',
} as const;

/** Password-hash exports carry `_id`/`_ID`/`passwordHash`; user exports carry `user_id`. */
export function sniffAuth0Kind(head: string): Auth0FileKind {
  return /"user_id"\s*:/.test(head) && !/"(?:_id|_ID|passwordHash)"\s*:/.test(head) ? 'users' : 'passwords';
}

export async function auth0FileKind(path: string): Promise<Auth0FileKind> {
  return sniffAuth0Kind((await readStart(path, 16 * 1024)).toString('utf8'));
}

export async function* readAuth0(paths: string[], providers: ProviderLookup, findings?: SourceFindings): AsyncGenerator<SourceItem[]> {
  const passwordFiles: string[] = [];
  const userFiles: string[] = [];
  for (const path of paths) ((await auth0FileKind(path)) === 'users' ? userFiles : passwordFiles).push(path);
  if (userFiles.length === 0) {
    for (const path of passwordFiles) yield* readPasswordFile(path);
    return;
  }
  // The join: password records wait in a map until the user export brings the same id.
  const waiting = new Map<string, SourceRecord>();
  for (const path of passwordFiles) {
    for await (const batch of readPasswordFile(path)) {
      const pass: SourceItem[] = [];
      for (const item of batch) {
        if (item.kind === 'problem') pass.push(item);
        else if (waiting.has(item.value.record.id))
          pass.push(item); // a duplicate id: validation reports it
        else waiting.set(item.value.record.id, item.value);
      }
      if (pass.length > 0) yield pass;
    }
  }
  for (const path of userFiles) {
    for await (const batch of readJsonValues(path)) {
      yield batch.map((raw) => {
        if (!raw.ok) return { kind: 'problem', problem: raw.problem };
        const item = auth0UserItem(raw.value, raw.origin, providers);
        // A database user's password is only in the password-hash export (from Auth0 support).
        if (passwordFiles.length === 0 && item.kind === 'record' && item.value.record.id.startsWith('auth0|'))
          findings?.dropped(PASSWORDS_MISSING);
        if (item.kind === 'record') {
          const pw = waiting.get(item.value.record.id);
          if (pw) {
            waiting.delete(item.value.record.id);
            mergePassword(item.value, pw);
          }
        }
        return item;
      });
    }
  }
  if (waiting.size > 0) yield [...waiting.values()].map((value) => ({ kind: 'record', value }));
}

async function* readPasswordFile(path: string): AsyncGenerator<SourceItem[]> {
  for await (const batch of readJsonValues(path)) {
    yield batch.map((raw) => (raw.ok ? auth0PasswordItem(raw.value, raw.origin) : { kind: 'problem', problem: raw.problem }));
  }
}

function mergePassword(user: SourceRecord, pw: SourceRecord): void {
  const r = user.record;
  if (pw.record.password) r.password = pw.record.password;
  if (r.email === undefined && pw.record.email !== undefined) r.email = pw.record.email;
  if (r.emailVerified === undefined && pw.record.emailVerified !== undefined) r.emailVerified = pw.record.emailVerified;
  user.problems.push(...pw.problems);
}

function oid(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value['$oid'] === 'string') return value['$oid'];
  return undefined;
}

export function auth0PasswordItem(value: unknown, origin: RecordOrigin): SourceItem {
  if (!isObject(value)) return { kind: 'problem', problem: notAnObject(origin, value) };
  const ctx: FieldContext = { origin, problems: [] };
  const altId = str(ctx, value, 'alt_id');
  const objectId = oid(value['_id']) ?? oid(value['_ID']);
  const local = altId ?? objectId;
  if (local === undefined || local === '') {
    addProblem(ctx, '_id', 'the record has no _id.$oid (or _ID, alt_id); it cannot be joined or imported', 'source.required');
    return { kind: 'problem', problem: ctx.problems[0]! };
  }
  const id = `auth0|${local}`;
  ctx.sourceId = id;
  const record: CanonicalUser = { id };
  let email = str(ctx, value, 'email');
  let verified = bool(ctx, value, 'email_verified');
  const identifiers = arr(ctx, value, 'identifiers') ?? [];
  const emailId = identifiers.find((i) => isObject(i) && i['type'] === 'email' && typeof i['value'] === 'string') as
    Record<string, unknown> | undefined;
  if (email === undefined && emailId) {
    email = emailId['value'] as string;
    if (verified === undefined && typeof emailId['verified'] === 'boolean') verified = emailId['verified'];
  }
  if (email !== undefined) record.email = email;
  if (verified !== undefined) record.emailVerified = verified;
  const hash = str(ctx, value, 'passwordHash');
  if (hash !== undefined && hash !== '') record.password = { hash };
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

export function auth0UserItem(value: unknown, origin: RecordOrigin, providers: ProviderLookup): SourceItem {
  if (!isObject(value)) return { kind: 'problem', problem: notAnObject(origin, value) };
  const ctx: FieldContext = { origin, problems: [] };
  const id = sourceIdOf(ctx, value, 'user_id');
  if (id === undefined) return { kind: 'problem', problem: ctx.problems[0]! };
  const record: CanonicalUser = { id };
  const email = str(ctx, value, 'email');
  if (email !== undefined) record.email = email;
  const verified = bool(ctx, value, 'email_verified');
  if (verified !== undefined) record.emailVerified = verified;
  const rootPhone = str(ctx, value, 'phone_number');

  const identities = arr(ctx, value, 'identities') ?? [splitUserId(id)];
  const thirdParty: CanonicalThirdParty[] = [];
  identities.forEach((identity, i) => {
    const path = `identities[${i}]`;
    if (!isObject(identity)) return addProblem(ctx, path, `${path} must be an object`);
    const provider = str(ctx, identity, 'provider', `${path}.provider`, true);
    const rawUserId = identity['user_id'];
    const userId = typeof rawUserId === 'number' ? String(rawUserId) : str(ctx, identity, 'user_id', `${path}.user_id`, true);
    if (provider === undefined || userId === undefined) return;
    if (provider === 'auth0') return; // a database user: its password comes from the password-hash export
    if (provider === 'sms') {
      const profile = isObject(identity['profileData']) ? identity['profileData'] : {};
      const phone = rootPhone ?? (typeof profile['phone_number'] === 'string' ? profile['phone_number'] : undefined);
      if (phone !== undefined) record.phoneNumber = phone;
      else addProblem(ctx, path, 'an SMS passwordless identity without a phone_number cannot be migrated', 'auth0.sms-without-phone');
      return;
    }
    if (provider === 'email') {
      addProblem(
        ctx,
        path,
        'Auth0 passwordless email sign-in has no canonical equivalent; the user needs another first factor',
        'auth0.passwordless-email',
        'warning',
      );
      return;
    }
    let mapped = providers(provider);
    if (mapped === undefined) {
      mapped = provider;
      addProblem(
        ctx,
        `${path}.provider`,
        `provider "${provider}" is not in the provider map; kept as "${provider}" — map it if the core names it differently`,
        'source.provider-unmapped',
        'warning',
      );
    }
    const tp: CanonicalThirdParty = { providerId: mapped, userId };
    if (email !== undefined) tp.email = email;
    if (email !== undefined && verified !== undefined) tp.emailVerified = verified;
    thirdParty.push(tp);
  });
  if (thirdParty.length > 0) record.thirdParty = thirdParty;

  const created = value['created_at'];
  if (typeof created === 'string' && Number.isFinite(Date.parse(created))) record.timeJoined = Date.parse(created);
  if (value['blocked'] === true) record.disabled = true;
  const mfa = value['multifactor'];
  if (Array.isArray(mfa) && mfa.length > 0) {
    addProblem(
      ctx,
      'multifactor',
      `Auth0 does not export MFA secrets (${mfa.join(', ').slice(0, 60)}); the user must enrol again or the secrets must come from a TOTP list`,
      'auth0.mfa-not-exported',
      'warning',
    );
  }
  readProfile(ctx, value, record);
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

/**
 * name, nickname, picture, user_metadata and app_metadata -> metadata; roles from a `roles` list (strings or
 * `{ name }`, as the Management API lists them) and from the Authorization Extension's `app_metadata.authorization.roles`.
 */
function readProfile(ctx: FieldContext, value: Record<string, unknown>, record: CanonicalUser): void {
  for (const key of ['name', 'nickname', 'picture']) keepMetaString(ctx, record, value, key);
  keepMetaObject(ctx, record, value, 'user_metadata');
  keepMetaObject(ctx, record, value, 'app_metadata');
  addRoles(record, readRoleNames(ctx, value['roles'], 'roles'));
  const app = value['app_metadata'];
  const authz = isObject(app) && isObject(app['authorization']) ? app['authorization'] : undefined;
  if (authz) addRoles(record, readRoleNames(ctx, authz['roles'], 'app_metadata.authorization.roles'));
}

/** `google-oauth2|1035...` -> provider and user id, split on the FIRST `|` only. */
export function splitUserId(userId: string): { provider: string; user_id: string } {
  const bar = userId.indexOf('|');
  return bar < 0 ? { provider: 'auth0', user_id: userId } : { provider: userId.slice(0, bar), user_id: userId.slice(bar + 1) };
}
