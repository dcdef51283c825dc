// The Keycloak reader: a realm export (`kc.sh export`: `{"realm": ..., "users": [...]}` in one file, or users
// split into `<realm>-users-N.json`) or the admin API's user list, streamed user by user. Each user's
// credentials, federated identities, roles, attributes and flags map onto the canonical record.
import type { CanonicalThirdParty, CanonicalUser, RecordOrigin } from '../records/types.js';
import { UserError } from '../errors.js';
import type { SourceItem } from './index.js';
import type { FieldReport } from './field-report.js';
import { addProblem, arr, bool, isObject, num, obj, sourceIdOf, str, type FieldContext } from './fields.js';
import { readCredentials } from './keycloak-credentials.js';
import { notAnObject, readJsonValues } from './json-values.js';
import type { ProviderLookup } from './providers.js';

const FORMAT = 'keycloak';

export interface KeycloakOptions {
  providers: ProviderLookup;
  fields?: FieldReport;
}

/** Realm roles every user of a realm holds: reported, not carried. */
export function isDefaultRealmRole(role: string): boolean {
  return role === 'offline_access' || role === 'uma_authorization' || role.startsWith('default-roles-');
}

const MAPPED: Record<string, string> = {
  id: 'id (run --keep-source-ids keeps it as the core user id)',
  username: 'metadata.username',
  email: 'email',
  emailVerified: 'emailVerified',
  firstName: 'metadata.firstName',
  lastName: 'metadata.lastName',
  enabled: 'disabled (enabled false)',
  createdTimestamp: 'timeJoined',
  attributes: 'metadata.attributes',
  realmRoles: 'roles',
  clientRoles: "roles, as <clientId>:<role> (the roles of Keycloak's own clients are not carried)",
  groups: 'roles, as group:<path> (e.g. group:/staff/admins)',
  federatedIdentities: 'thirdParty[]',
  credentials: 'password, legacyPassword, totp[] (by type, below)',
  totp: 'totp[] (from the otp credentials)',
};

const DROPPED: Record<string, string> = {
  requiredActions: 'actions Keycloak asks for at the next sign-in (UPDATE_PASSWORD, CONFIGURE_TOTP, ...); the core has none',
  notBefore: 'a token revocation time of the old system; sessions are not migrated',
  consents: 'consents given to Keycloak clients; the core has no such record',
  federationLink: 'the user lives in a user federation (LDAP, Kerberos): its password stays in that directory',
  disableableCredentialTypes: 'derived by Keycloak from the credentials',
  access: 'what the admin console may do with the user; not user data',
};

export async function* readKeycloak(path: string, options: KeycloakOptions): AsyncGenerator<SourceItem[]> {
  try {
    for await (const batch of readJsonValues(path, { arrayKey: 'users', ndjson: false })) {
      yield batch.map((raw) => (raw.ok ? keycloakItem(raw.value, raw.origin, options) : { kind: 'problem', problem: raw.problem }));
    }
  } catch (err) {
    if (err instanceof UserError && /no "users" array/.test(err.message))
      throw new UserError(
        `${path} is a Keycloak realm export without users (exported with users in separate files?): give the <realm>-users-N.json files instead`,
      );
    throw err;
  }
}

export function keycloakItem(value: unknown, origin: RecordOrigin, options: KeycloakOptions): SourceItem {
  if (!isObject(value)) return { kind: 'problem', problem: notAnObject(origin, value) };
  const { fields } = options;
  const ctx: FieldContext = { origin, problems: [] };
  const id = sourceIdOf(ctx, value, 'id');
  if (id === undefined) return { kind: 'problem', problem: ctx.problems[0]! };
  if (typeof value['realm'] === 'string' || Array.isArray(value['users'])) {
    addProblem(
      ctx,
      'realm',
      'this element is a whole realm (an export of several realms): export one realm with --realm NAME and give that file',
      'keycloak.realm-list',
    );
    return { kind: 'problem', problem: ctx.problems[0]! };
  }
  if (typeof value['serviceAccountClientId'] === 'string') {
    addProblem(
      ctx,
      'serviceAccountClientId',
      'a service account of a Keycloak client, not a person: it is not migrated',
      'keycloak.service-account',
      'warning',
    );
    return { kind: 'problem', problem: ctx.problems[0]! };
  }
  reportFields(value, fields);
  // Applications hold Keycloak's user id (the `sub` of its tokens): `run --keep-source-ids` keeps it.
  const record: CanonicalUser = { id };
  const email = str(ctx, value, 'email');
  if (email !== undefined && email !== '') record.email = email;
  const verified = bool(ctx, value, 'emailVerified');
  if (verified !== undefined && record.email !== undefined) record.emailVerified = verified;
  if (bool(ctx, value, 'enabled') === false) record.disabled = true;
  const created = num(ctx, value, 'createdTimestamp');
  if (created !== undefined) record.timeJoined = created;

  const metadata: Record<string, unknown> = {};
  for (const key of ['username', 'firstName', 'lastName'] as const) {
    const v = str(ctx, value, key);
    if (v !== undefined && v !== '') metadata[key] = v;
  }
  const attributes = obj(ctx, value, 'attributes');
  if (attributes && Object.keys(attributes).length > 0) metadata['attributes'] = attributes;
  if (Object.keys(metadata).length > 0) record.metadata = metadata;

  const roles = readRealmRoles(ctx, value, fields);
  readClientRolesAndGroups(ctx, value, roles, fields);
  if (roles.length > 0) record.roles = roles;

  const thirdParty = readFederated(ctx, value, record, options.providers);
  if (thirdParty.length > 0) record.thirdParty = thirdParty;
  readCredentials(ctx, arr(ctx, value, 'credentials') ?? [], record, fields);
  if (typeof value['federationLink'] === 'string')
    addProblem(
      ctx,
      'federationLink',
      'the user comes from a user federation (LDAP, Kerberos); its password is in that directory, not in the export',
      'keycloak.federated',
      'warning',
    );
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

/** Each field the user has (an empty one is no field) reported as carried or dropped. */
function reportFields(value: Record<string, unknown>, fields: FieldReport | undefined): void {
  for (const [key, v] of Object.entries(value)) {
    if (
      v === null ||
      v === undefined ||
      (v === false && key === 'totp') ||
      (Array.isArray(v) && v.length === 0) ||
      (isObject(v) && Object.keys(v).length === 0)
    )
      continue;
    if (MAPPED[key] !== undefined) fields?.mapped(FORMAT, key, MAPPED[key]);
    else if (DROPPED[key] !== undefined) fields?.dropped(FORMAT, key, DROPPED[key]);
    else if (key !== 'self' && key !== 'origin')
      fields?.dropped(FORMAT, key, 'not a UserRepresentation field this reader knows; it is not carried');
  }
}

/** The realm roles that are the app's own: the ones every user of a realm holds by default are left out (reported). */
function readRealmRoles(ctx: FieldContext, value: Record<string, unknown>, fields: FieldReport | undefined): string[] {
  const realmRoles = arr(ctx, value, 'realmRoles') ?? [];
  const roles: string[] = [];
  let defaults = false;
  for (const role of realmRoles) {
    if (typeof role !== 'string' || role === '') addProblem(ctx, 'realmRoles', 'realmRoles must be role names');
    else if (isDefaultRealmRole(role)) defaults = true;
    else if (!roles.includes(role)) roles.push(role);
  }
  if (defaults)
    fields?.dropped(
      FORMAT,
      'realmRoles (default-roles-<realm>, offline_access, uma_authorization)',
      'roles every user of a realm holds by default; not carried',
    );
  return roles;
}

/**
 * Keycloak's clients that come with every realm: their roles grant rights in Keycloak itself (its account console,
 * its admin API), which the new system does not have.
 */
const KEYCLOAK_CLIENTS = new Set(['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console']);

/**
 * `clientRoles` (`{"my-app": ["editor"]}`) and `groups` (`["/staff/admins"]`) as roles, named so they cannot meet a
 * realm role or each other: `<clientId>:<role>` (`my-app:editor`) and `group:<path>` (`group:/staff/admins`). The
 * core has one flat list of role names per app; the app checks these names as it checked Keycloak's.
 */
function readClientRolesAndGroups(ctx: FieldContext, value: Record<string, unknown>, roles: string[], fields?: FieldReport): void {
  const add = (role: string): void => {
    if (!roles.includes(role)) roles.push(role);
  };
  const clientRoles = obj(ctx, value, 'clientRoles');
  for (const [client, list] of Object.entries(clientRoles ?? {})) {
    if (!Array.isArray(list) || !list.every((r) => typeof r === 'string' && r.trim() !== '')) {
      addProblem(ctx, `clientRoles.${client}`, `clientRoles.${client} must be a list of role names; its roles are not carried`);
      continue;
    }
    if (KEYCLOAK_CLIENTS.has(client)) {
      fields?.dropped(
        FORMAT,
        `clientRoles.${client}`,
        "roles of one of Keycloak's own clients (its account console and admin API); they grant nothing outside Keycloak",
      );
      continue;
    }
    for (const role of list as string[]) add(`${client}:${role.trim()}`);
  }
  const groups = arr(ctx, value, 'groups') ?? [];
  for (const group of groups) {
    if (typeof group !== 'string' || group.trim() === '') addProblem(ctx, 'groups', 'groups must be group paths (/staff/admins)');
    else add(`group:${group.trim()}`);
  }
}

function readFederated(
  ctx: FieldContext,
  value: Record<string, unknown>,
  record: CanonicalUser,
  providers: ProviderLookup,
): CanonicalThirdParty[] {
  const out: CanonicalThirdParty[] = [];
  (arr(ctx, value, 'federatedIdentities') ?? []).forEach((fi, i) => {
    const path = `federatedIdentities[${i}]`;
    if (!isObject(fi)) return addProblem(ctx, path, `${path} must be an object`);
    const provider = str(ctx, fi, 'identityProvider', `${path}.identityProvider`, true);
    const userId = str(ctx, fi, 'userId', `${path}.userId`, true);
    if (provider === undefined || userId === undefined) return;
    let mapped = providers(provider);
    if (mapped === undefined) {
      mapped = provider;
      addProblem(
        ctx,
        `${path}.identityProvider`,
        `identity provider "${provider}" is not in the provider map; kept as "${provider}" — map it if the core names it differently`,
        'source.provider-unmapped',
        'warning',
      );
    }
    const tp: CanonicalThirdParty = { providerId: mapped, userId };
    // userName is the user's name at the provider; an email there is the best email for this login.
    const userName = str(ctx, fi, 'userName', `${path}.userName`);
    const email = userName !== undefined && userName.includes('@') ? userName : record.email;
    if (email !== undefined) tp.email = email;
    if (email !== undefined && email === record.email && record.emailVerified !== undefined) tp.emailVerified = record.emailVerified;
    out.push(tp);
  });
  return out;
}
