// The AWS Cognito reader: `aws cognito-idp list-users` JSON (`{"Users": [...]}`, or the user objects as a JSON
// array or NDJSON). Attributes by name: sub, email and phone with their verified flags, the `identities` JSON of
// social logins, every other (standard or custom:) attribute into metadata. Cognito exports no password hashes:
// a native user gets a legacyPassword without a hash, for the path of users without a usable hash.
import type { CanonicalThirdParty, CanonicalUser, RecordOrigin } from '../records/types.js';
import type { SourceItem } from './index.js';
import { addProblem, arr, describe, isObject, str, type FieldContext } from './fields.js';
import type { FieldReport } from './field-report.js';
import { notAnObject, readJsonValues } from './json-values.js';
import { keepMeta } from './profile.js';
import type { ProviderLookup } from './providers.js';

export const COGNITO = 'cognito';

/** Cognito's built-in social provider names; OIDC and SAML providers keep the name the pool gave them. */
const COGNITO_PROVIDERS: Record<string, string> = {
  Google: 'google',
  Facebook: 'facebook',
  SignInWithApple: 'apple',
  LoginWithAmazon: 'amazon',
};

/** The keys of a list-users user; others (admin-get-user's MFA settings, ...) are named as dropped. */
const USER_KEYS = new Set(['Username', 'Attributes', 'UserCreateDate', 'UserLastModifiedDate', 'Enabled', 'UserStatus', 'MFAOptions']);

/** Attributes that are not profile data: read into the record's own fields. */
const OWN = new Set(['sub', 'email', 'email_verified', 'phone_number', 'phone_number_verified', 'identities']);

export interface CognitoOptions {
  providers: ProviderLookup;
  fields?: FieldReport;
}

/**
 * All the Cognito files of a read (pages of one pool) together: a social login linked to a native user
 * (AdminLinkProviderForUser) is listed twice, as the IdP user (EXTERNAL_PROVIDER) and in the native user's
 * `identities`; a first pass collects the linked logins, so the second gives one user with both (the native user,
 * its login among its thirdParty) and names the IdP user's record as merged.
 */
export async function* readCognito(paths: string[], options: CognitoOptions): AsyncGenerator<SourceItem[]> {
  const linked = new Set<string>();
  for (const path of paths)
    for await (const batch of readJsonValues(path, { arrayKey: 'Users' }))
      for (const raw of batch) if (raw.ok && isObject(raw.value)) noteLinkedLogins(raw.value, linked);
  for (const path of paths) {
    for await (const batch of readJsonValues(path, { arrayKey: 'Users' })) {
      yield batch.map((raw) => {
        if (!raw.ok) return { kind: 'problem', problem: raw.problem };
        const item = cognitoItem(raw.value, raw.origin, options);
        return linked.size > 0 && item.kind === 'record'
          ? mergedIfLinked(item, raw.value as Record<string, unknown>, linked, options)
          : item;
      });
    }
  }
}

const loginKey = (provider: string, userId: string): string => `${provider}\u0000${userId}`;

/** The logins a native user's `identities` attribute names: they were linked to it. */
function noteLinkedLogins(user: Record<string, unknown>, linked: Set<string>): void {
  if (user['UserStatus'] === 'EXTERNAL_PROVIDER' || !Array.isArray(user['Attributes'])) return;
  for (const a of user['Attributes'] as unknown[]) {
    if (!isObject(a) || a['Name'] !== 'identities' || typeof a['Value'] !== 'string') continue;
    try {
      const list = JSON.parse(a['Value']) as unknown;
      if (Array.isArray(list))
        for (const i of list)
          if (isObject(i) && typeof i['providerName'] === 'string' && typeof i['userId'] === 'string')
            linked.add(loginKey(i['providerName'], i['userId']));
    } catch {
      // The native user's own read names an attribute that is not JSON.
    }
  }
}

/** An IdP user whose every login is linked to a native user: left out, named, as that user carries the login. */
function mergedIfLinked(item: SourceItem, user: Record<string, unknown>, linked: Set<string>, options: CognitoOptions): SourceItem {
  if (item.kind !== 'record' || user['UserStatus'] !== 'EXTERNAL_PROVIDER') return item;
  const { record, origin } = item.value;
  const logins = (Array.isArray(user['Attributes']) ? (user['Attributes'] as unknown[]) : [])
    .filter((a) => isObject(a) && a['Name'] === 'identities')
    .flatMap((a) => {
      try {
        const list = JSON.parse((a as Record<string, unknown>)['Value'] as string) as unknown;
        return Array.isArray(list) ? list : [];
      } catch {
        return [];
      }
    })
    .filter((i): i is Record<string, unknown> => isObject(i));
  const all = logins.length > 0 && logins.every((i) => linked.has(loginKey(String(i['providerName']), String(i['userId']))));
  if (!all) return item;
  options.fields?.dropped(
    COGNITO,
    'EXTERNAL_PROVIDER user linked to a native user',
    "Cognito lists a linked social login twice; the native user carries it (its identities), so the IdP user's record is not a user of its own",
  );
  const names = logins.map((i) => String(i['providerName'])).join(', ');
  return {
    kind: 'problem',
    problem: {
      severity: 'warning',
      rule: 'cognito.linked-login',
      origin,
      sourceId: record.id,
      message: `this ${names} user is linked to a native user (AdminLinkProviderForUser), which carries the login: migrated once, as a login of that user`,
    },
  };
}

/** `Attributes: [{Name, Value}]` as a map; a malformed entry is named. */
function attributes(ctx: FieldContext, user: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  (arr(ctx, user, 'Attributes') ?? []).forEach((a, i) => {
    if (isObject(a) && typeof a['Name'] === 'string' && typeof a['Value'] === 'string') out.set(a['Name'], a['Value']);
    else
      addProblem(
        ctx,
        `Attributes[${i}]`,
        `Attributes[${i}] must be {"Name": "...", "Value": "..."}; it is left out`,
        'source.type',
        'warning',
      );
  });
  return out;
}

/** CLI v2 prints ISO 8601; v1 (and `cli_timestamp_format = none`) epoch seconds. */
function timestamp(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value * 1000);
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  return undefined;
}

export function cognitoItem(value: unknown, origin: RecordOrigin, options: CognitoOptions): SourceItem {
  if (!isObject(value)) return { kind: 'problem', problem: notAnObject(origin, value) };
  const ctx: FieldContext = { origin, problems: [] };
  const f = options.fields;
  const mapped = (field: string, to: string): void => f?.mapped(COGNITO, field, to);
  const attrs = attributes(ctx, value);
  const username = str(ctx, value, 'Username');
  const id = attrs.get('sub') ?? username;
  if (id === undefined || id === '') {
    addProblem(ctx, 'Attributes.sub', 'the user has neither a sub attribute nor a Username; it cannot be identified', 'source.required');
    return { kind: 'problem', problem: ctx.problems[0]! };
  }
  ctx.sourceId = id;
  for (const p of ctx.problems) p.sourceId ??= id;
  const record: CanonicalUser = { id };
  mapped(attrs.has('sub') ? 'Attributes.sub' : 'Username', 'id');

  const phone = readContacts(attrs, record, mapped, f);
  readMfaOptions(ctx, value, record, phone, f);

  const thirdParty = readIdentities(ctx, attrs.get('identities'), record, options);
  if (thirdParty.length > 0) {
    record.thirdParty = thirdParty;
    mapped('Attributes.identities', 'thirdParty[]');
  }

  for (const [name, v] of attrs) {
    if (OWN.has(name) || v === '') continue;
    keepMeta(record, name, v);
    mapped(
      `Attributes.${name.startsWith('custom:') ? 'custom:*' : name}`,
      name.startsWith('custom:') ? 'metadata["custom:..."]' : `metadata.${name}`,
    );
  }
  if (username !== undefined && username !== id) {
    keepMeta(record, 'cognito:username', username);
    mapped('Username', 'metadata["cognito:username"]');
  }

  const created = value['UserCreateDate'];
  if (created !== undefined && created !== null) {
    const ms = timestamp(created);
    if (ms !== undefined) {
      record.timeJoined = ms;
      mapped('UserCreateDate', 'timeJoined');
    } else
      addProblem(
        ctx,
        'UserCreateDate',
        `UserCreateDate must be an ISO 8601 date or epoch seconds, not ${describe(created)}; the join time is left out`,
        'source.type',
        'warning',
      );
  }
  if (value['UserLastModifiedDate'] !== undefined) f?.dropped(COGNITO, 'UserLastModifiedDate', 'the core keeps no last-modified time');
  if (value['Enabled'] === false) record.disabled = true;
  if (typeof value['Enabled'] === 'boolean') mapped('Enabled', 'disabled');

  for (const key of Object.keys(value))
    if (!USER_KEYS.has(key)) f?.dropped(COGNITO, key, 'not a field of list-users output that the workbench knows; check its name');
  readStatus(ctx, value, record, username, mapped, f);
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

type Mapped = (field: string, to: string) => void;

/** Email (with its verified flag) and a verified phone into the record; returns the phone attribute as given. */
function readContacts(attrs: Map<string, string>, record: CanonicalUser, mapped: Mapped, f: FieldReport | undefined): string | undefined {
  const email = attrs.get('email');
  if (email !== undefined && email !== '') {
    record.email = email;
    mapped('Attributes.email', 'email');
    const verified = attrs.get('email_verified');
    if (verified !== undefined) {
      record.emailVerified = verified.toLowerCase() === 'true';
      mapped('Attributes.email_verified', 'emailVerified');
    }
  }
  const phone = attrs.get('phone_number');
  const phoneVerified = attrs.get('phone_number_verified')?.toLowerCase() === 'true';
  if (phone !== undefined && phone !== '') {
    if (phoneVerified) {
      record.phoneNumber = phone;
      mapped('Attributes.phone_number', 'phoneNumber');
      mapped('Attributes.phone_number_verified', 'phoneNumber (verified numbers only)');
    } else
      f?.dropped(COGNITO, 'Attributes.phone_number (unverified)', 'an unverified phone number is not a sign-in method; it is not carried');
  }
  return phone;
}

/** What a user's status says of its password: none for a social user, a legacy one only Cognito can check for a native one. */
function readStatus(
  ctx: FieldContext,
  value: Record<string, unknown>,
  record: CanonicalUser,
  username: string | undefined,
  mapped: Mapped,
  f: FieldReport | undefined,
): void {
  const status = typeof value['UserStatus'] === 'string' ? value['UserStatus'] : undefined;
  if (status !== undefined && status !== 'EXTERNAL_PROVIDER' && record.email === undefined && record.phoneNumber !== undefined) {
    // The core's passwords belong to an email: a native user with only a verified phone keeps that way in (phone
    // sign-in), and its Cognito password, which could never be set in the core, is not carried.
    addProblem(
      ctx,
      'UserStatus',
      'a native user with a verified phone and no email: it migrates with phone sign-in (one-time codes to its phone); its Cognito password is not carried, as a password in the core needs an email',
      'cognito.phone-only',
      'warning',
    );
    f?.dropped(
      COGNITO,
      'UserStatus (native user without an email)',
      'a password in the core needs an email: the user signs in with its phone',
    );
  } else if (status !== undefined && status !== 'EXTERNAL_PROVIDER') {
    // A native user signs in with a password Cognito never exports: only Cognito itself can check it (at first
    // sign-in, through the app's backend), so the user goes the way of users without a usable hash.
    record.legacyPassword = { algorithm: 'aws_cognito', hash: '', params: { userStatus: status, ...(username ? { username } : {}) } };
    mapped('UserStatus', 'legacyPassword (no hash: Cognito exports none)');
  } else if (status === 'EXTERNAL_PROVIDER') mapped('UserStatus', 'no password (EXTERNAL_PROVIDER)');
}

function readMfaOptions(
  ctx: FieldContext,
  user: Record<string, unknown>,
  record: CanonicalUser,
  phone: string | undefined,
  f?: FieldReport,
): void {
  for (const [i, o] of (arr(ctx, user, 'MFAOptions') ?? []).entries()) {
    if (!isObject(o)) continue;
    if (o['DeliveryMedium'] === 'SMS' && o['AttributeName'] === 'phone_number' && phone) {
      record.otpFactors = { ...record.otpFactors, phoneNumber: phone };
      f?.mapped(COGNITO, 'MFAOptions (SMS)', 'otpFactors.phoneNumber');
    } else if (o['DeliveryMedium'] === 'EMAIL' && record.email !== undefined) {
      record.otpFactors = { ...record.otpFactors, email: record.email };
      f?.mapped(COGNITO, 'MFAOptions (EMAIL)', 'otpFactors.email');
    } else f?.dropped(COGNITO, `MFAOptions[${i}]`, 'an MFA option the core cannot take (or without the attribute it names)');
  }
}

function readIdentities(
  ctx: FieldContext,
  json: string | undefined,
  record: CanonicalUser,
  options: CognitoOptions,
): CanonicalThirdParty[] {
  if (json === undefined || json === '') return [];
  let list: unknown;
  try {
    list = JSON.parse(json);
  } catch {
    addProblem(
      ctx,
      'Attributes.identities',
      'the identities attribute is not valid JSON; the social logins are left out',
      'source.json-field',
    );
    return [];
  }
  if (!Array.isArray(list)) {
    addProblem(ctx, 'Attributes.identities', 'the identities attribute must be a JSON list; the social logins are left out', 'source.type');
    return [];
  }
  const out: CanonicalThirdParty[] = [];
  list.forEach((identity, i) => {
    const path = `Attributes.identities[${i}]`;
    const provider = isObject(identity) && typeof identity['providerName'] === 'string' ? identity['providerName'] : undefined;
    const userId = isObject(identity) && typeof identity['userId'] === 'string' ? identity['userId'] : undefined;
    if (provider === undefined || userId === undefined) {
      addProblem(ctx, path, `${path} needs providerName and userId; this login is left out`, 'source.required');
      return;
    }
    let mapped = options.providers(provider) ?? COGNITO_PROVIDERS[provider];
    if (mapped === undefined) {
      mapped = provider;
      addProblem(
        ctx,
        `${path}.providerName`,
        `provider "${provider}" is not in the provider map; kept as "${provider}" — map it (--provider-map) if the core names it differently`,
        'source.provider-unmapped',
        'warning',
      );
    }
    const tp: CanonicalThirdParty = { providerId: mapped, userId };
    if (record.email !== undefined) tp.email = record.email;
    if (record.emailVerified !== undefined) tp.emailVerified = record.emailVerified;
    out.push(tp);
  });
  return out;
}

/** A JSON head that is Cognito's: users with `Username` and `Attributes` or `UserStatus`. */
export function isCognitoJson(head: string): boolean {
  return /"Username"\s*:/.test(head) && /"Attributes"\s*:|"UserStatus"\s*:/.test(head);
}
