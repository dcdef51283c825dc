// Generated Auth0 exports: the password-hash export (bcrypt) and the user export (database, social, SMS users).
import { bcryptHash } from './hashes.js';
import type { GeneratedSet, KnownCredential } from './canonical.js';
import type { Rng } from '../../src/shared/rng.js';

export type Auth0Object = Record<string, unknown>;

export interface Auth0Fixture {
  passwords: Auth0Object[];
  users: Auth0Object[];
  credentials: KnownCredential[];
}

function objectId(rng: Rng): string {
  return rng.bytes(12).toString('hex');
}

export function auth0FixtureUsers(rng: Rng): Auth0Fixture {
  const passwords: Auth0Object[] = [];
  const users: Auth0Object[] = [];
  const credentials: KnownCredential[] = [];
  const date = (n: number): string => new Date(Date.UTC(2021, 3, 1 + n)).toISOString();

  const gusId = objectId(rng);
  const gusPw = `gus-${rng.word(8)}`;
  passwords.push({
    _id: { $oid: gusId },
    email_verified: true,
    email: 'gus@example.com',
    passwordHash: bcryptHash(gusPw, rng, 6, '2b'),
    password_set_date: { $date: date(0) },
    tenant: 'example',
    connection: 'Username-Password-Authentication',
    _tmp_is_unique: true,
  });
  users.push({
    user_id: `auth0|${gusId}`,
    email: 'gus@example.com',
    email_verified: true,
    created_at: date(0),
    identities: [{ provider: 'auth0', user_id: gusId, connection: 'Username-Password-Authentication', isSocial: false }],
    name: 'Gus Grant',
    nickname: 'gus',
    picture: 'https://example.com/avatars/gus.png',
    user_metadata: { theme: 'dark', locale: 'en-GB' },
    app_metadata: { plan: 'pro', authorization: { roles: ['editor'] } },
  });
  credentials.push({
    id: `auth0|${gusId}`,
    email: 'gus@example.com',
    password: gusPw,
    algorithm: 'bcrypt',
    totp: [],
    notes: 'database user (`_id.$oid`)',
  });

  const halId = objectId(rng);
  const halPw = `hal-${rng.word(8)}`;
  passwords.push({
    _id: { $oid: halId },
    email_verified: false,
    passwordHash: bcryptHash(halPw, rng, 6, '2b'),
    password_set_date: { $date: date(1) },
    tenant: 'example',
    connection: 'Username-Password-Authentication',
    _tmp_is_unique: true,
    identifiers: [{ type: 'email', value: 'hal@example.com', verified: false }],
    alt_id: 'euclid',
  });
  users.push({
    user_id: 'auth0|euclid',
    email: 'hal@example.com',
    email_verified: false,
    created_at: date(1),
    identities: [{ provider: 'auth0', user_id: 'euclid', connection: 'Username-Password-Authentication', isSocial: false }],
    nickname: 'hal',
    roles: [{ id: 'rol_01', name: 'admin' }, 'editor'],
  });
  credentials.push({
    id: 'auth0|euclid',
    email: 'hal@example.com',
    password: halPw,
    algorithm: 'bcrypt',
    totp: [],
    notes: 'database user with alt_id and no root email (identifiers[] fallback)',
  });

  users.push({
    user_id: 'google-oauth2|103500000000000000301',
    email: 'ivy@example.com',
    email_verified: true,
    created_at: date(2),
    identities: [{ provider: 'google-oauth2', user_id: '103500000000000000301', connection: 'google-oauth2', isSocial: true }],
  });
  credentials.push({ id: 'google-oauth2|103500000000000000301', email: 'ivy@example.com', totp: [], notes: 'Google (google-oauth2) user' });
  users.push({ user_id: 'windowslive|ab12|jay@contoso.example', email: 'jay@example.com', email_verified: true, created_at: date(3) });
  credentials.push({
    id: 'windowslive|ab12|jay@contoso.example',
    email: 'jay@example.com',
    totp: [],
    notes: 'no identities[]: provider split from user_id on the first `|`',
  });
  users.push({
    user_id: 'sms|64a0000000000000000301',
    phone_number: '+14155550301',
    phone_verified: true,
    created_at: date(4),
    identities: [{ provider: 'sms', user_id: '64a0000000000000000301', connection: 'sms', isSocial: false }],
  });
  credentials.push({ id: 'sms|64a0000000000000000301', totp: [], notes: 'SMS passwordless: phone sign-in +14155550301' });
  return { passwords, users, credentials };
}

/** The same password records as a JSON array with `_ID`, as some guides show them. */
export function auth0PasswordArray(passwords: Auth0Object[]): string {
  const renamed = passwords.map(({ _id, ...rest }) => ({ _ID: _id, ...rest }));
  return JSON.stringify(renamed, null, 2) + '\n';
}

export function ndjson(objects: object[]): string {
  return objects.map((o) => JSON.stringify(o)).join('\n') + '\n';
}

export type { GeneratedSet };
