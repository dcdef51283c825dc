// Generated Keycloak realm exports (`kc.sh export`): users with pbkdf2-sha256 / pbkdf2-sha512 / argon2 password
// credentials and otp credentials (secretData and credentialData as JSON text, as Keycloak writes them), with
// known passwords and secrets; also the same users split into `<realm>-users-N.json` files.
import { pbkdf2Sync } from 'node:crypto';
import { argon2id } from 'hash-wasm';
import base32 from 'hi-base32';
import type { KnownCredential } from './canonical.js';
import type { Rng } from '../../src/shared/rng.js';

export type KcUser = Record<string, unknown>;

export interface KeycloakFixture {
  realm: string;
  users: KcUser[];
  credentials: KnownCredential[];
}

function uuid(rng: Rng): string {
  const h = rng.bytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const when = (day: number): number => Date.UTC(2023, 5, day, 8, 0, 0);

/** A password credential as Keycloak 12+ exports it. */
export function pbkdf2Credential(
  password: string,
  rng: Rng,
  algorithm: 'pbkdf2-sha256' | 'pbkdf2-sha512',
  iterations: number,
  day: number,
): KcUser {
  const salt = rng.bytes(16);
  const digest = algorithm === 'pbkdf2-sha256' ? 'sha256' : 'sha512';
  const value = pbkdf2Sync(password, salt, iterations, 64, digest).toString('base64');
  return {
    id: uuid(rng),
    type: 'password',
    userLabel: 'My password',
    createdDate: when(day),
    secretData: JSON.stringify({ value, salt: salt.toString('base64'), additionalParameters: {} }),
    credentialData: JSON.stringify({ hashIterations: iterations, algorithm, additionalParameters: {} }),
  };
}

/** Keycloak 24+'s default: argon2id, 7 MiB, 5 iterations, 32-byte hash. */
export async function argon2Credential(password: string, rng: Rng, day: number): Promise<KcUser> {
  const salt = rng.bytes(16);
  const hash = await argon2id({ password, salt, parallelism: 1, iterations: 5, memorySize: 7168, hashLength: 32, outputType: 'binary' });
  const params = { hashLength: ['32'], memory: ['7168'], type: ['id'], version: ['1.3'], parallelism: ['1'] };
  return {
    id: uuid(rng),
    type: 'password',
    createdDate: when(day),
    secretData: JSON.stringify({ value: Buffer.from(hash).toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
    credentialData: JSON.stringify({ hashIterations: 5, algorithm: 'argon2', additionalParameters: params }),
  };
}

/** An otp credential; `encoded` true writes a base32 secret with `secretEncoding` (Keycloak 22+ imports). */
export function otpCredential(secret: string, rng: Rng, label: string, day: number, data: Record<string, unknown> = {}): KcUser {
  return {
    id: uuid(rng),
    type: 'otp',
    userLabel: label,
    createdDate: when(day),
    secretData: JSON.stringify({ value: secret }),
    credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1', ...data }),
  };
}

const b32 = (bytes: Buffer): string => base32.encode(bytes).replace(/=+$/, '');

export async function keycloakFixtureUsers(rng: Rng): Promise<KeycloakFixture> {
  const realm = 'acme';
  const users: KcUser[] = [];
  const credentials: KnownCredential[] = [];
  const defaults = [`default-roles-${realm}`, 'offline_access', 'uma_authorization'];
  const user = (id: string, username: string, day: number, extra: KcUser): KcUser => ({
    id,
    username,
    enabled: true,
    totp: false,
    createdTimestamp: when(day),
    disableableCredentialTypes: [],
    requiredActions: [],
    realmRoles: defaults,
    notBefore: 0,
    groups: [],
    ...extra,
  });

  // Argon2 password (importable) and a Keycloak-generated otp secret (20 characters, keyed by their UTF-8 bytes).
  const annId = uuid(rng);
  const annPw = `ann-${rng.word(8)}`;
  const annSecret = rng.word(20);
  users.push(
    user(annId, 'ann', 1, {
      email: 'ann.kc@example.com',
      emailVerified: true,
      firstName: 'Ann',
      lastName: 'Kay',
      totp: true,
      attributes: { department: ['engineering'], locale: ['en'] },
      credentials: [await argon2Credential(annPw, rng, 1), otpCredential(annSecret, rng, 'Ann phone', 2)],
      realmRoles: [...defaults, 'admin'],
      clientRoles: { account: ['manage-account'], 'acme-web': ['billing'] },
      groups: ['/staff'],
    }),
  );
  const annB32 = b32(Buffer.from(annSecret, 'utf8'));
  credentials.push({
    id: annId,
    email: 'ann.kc@example.com',
    password: annPw,
    algorithm: 'argon2',
    totp: [{ secret: annB32, encoding: 'base32', base32: annB32, deviceName: 'Ann phone' }],
    notes: `argon2 (carried as an argon2 PHC string); otp secret text \`${annSecret}\`; realm role admin`,
  });

  // A Google login with an otp secret imported as base32 (secretEncoding).
  const benId = uuid(rng);
  const benSecret = b32(rng.bytes(20));
  users.push(
    user(benId, 'ben', 3, {
      email: 'ben.kc@example.com',
      emailVerified: true,
      totp: true,
      federatedIdentities: [{ identityProvider: 'google', userId: '104000000000000000301', userName: 'ben.kc@example.com' }],
      credentials: [otpCredential(benSecret, rng, 'Ben authenticator', 3, { secretEncoding: 'BASE32' })],
      realmRoles: [...defaults, 'editor'],
    }),
  );
  credentials.push({
    id: benId,
    email: 'ben.kc@example.com',
    totp: [{ secret: benSecret, encoding: 'base32', base32: benSecret, deviceName: 'Ben authenticator' }],
    notes: 'Google login (federatedIdentities); otp secret stored as base32 (secretEncoding BASE32)',
  });

  // A disabled GitHub user.
  const cyId = uuid(rng);
  users.push(
    user(cyId, 'cy', 4, {
      enabled: false,
      email: 'cy.kc@example.com',
      emailVerified: false,
      federatedIdentities: [{ identityProvider: 'github', userId: '5500401', userName: 'cy-gh' }],
    }),
  );
  credentials.push({
    id: cyId,
    email: 'cy.kc@example.com',
    totp: [],
    notes: 'disabled (enabled false); GitHub login (userName not an email: the user email is used)',
  });
  return { realm, users, credentials };
}

/**
 * Users with pbkdf2 passwords, which the core cannot take (the sign-in migration file): `dee` has nothing else to
 * sign in with; `eve` also has a Microsoft login, so `--unusable-hashes without-password` imports the rest of her.
 */
export async function keycloakLegacyUsers(rng: Rng, realm: string): Promise<KeycloakFixture> {
  const users: KcUser[] = [];
  const credentials: KnownCredential[] = [];
  const specs = [
    { name: 'dee', algorithm: 'pbkdf2-sha256' as const, iterations: 27500 },
    { name: 'eve', algorithm: 'pbkdf2-sha512' as const, iterations: 210000 },
  ];
  for (const [i, spec] of specs.entries()) {
    const id = uuid(rng);
    const pw = `${spec.name}-${rng.word(8)}`;
    const secret = rng.word(20);
    users.push({
      id,
      username: spec.name,
      email: `${spec.name}.kc@example.com`,
      emailVerified: true,
      enabled: true,
      createdTimestamp: when(10 + i),
      credentials: [
        pbkdf2Credential(pw, rng, spec.algorithm, spec.iterations, 10 + i),
        otpCredential(secret, rng, `${spec.name} phone`, 11),
      ],
      realmRoles: [`default-roles-${realm}`],
      ...(i === 1 ? { federatedIdentities: [{ identityProvider: 'microsoft', userId: 'ms-eve-1', userName: 'eve.kc@example.com' }] } : {}),
    });
    const secretB32 = b32(Buffer.from(secret, 'utf8'));
    credentials.push({
      id,
      email: `${spec.name}.kc@example.com`,
      totp: [{ secret: secretB32, encoding: 'base32', base32: secretB32, deviceName: `${spec.name} phone` }],
      notes: `legacy ${spec.algorithm} (${spec.iterations} iterations) password \`${pw}\` (sign-in migration)${i === 1 ? '; Microsoft login' : ''}; otp secret text \`${secret}\``,
    });
  }
  return { realm, users, credentials };
}

/** Pretty-printed as Keycloak's Jackson writer does it (`"key" : value`). */
function jackson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/^(\s*"[^"]+"): /gm, '$1 : ') + '\n';
}

/** The realm export as `kc.sh export --file` writes it (realm settings first, then the users). */
export function realmExportJson(realm: string, users: KcUser[]): string {
  const settings = { id: realm, realm, displayName: 'Acme', enabled: true, sslRequired: 'external', otpPolicyType: 'totp' };
  return jackson({ ...settings, roles: { realm: [{ name: 'admin' }, { name: 'editor' }] }, users });
}

/** One `<realm>-users-N.json` file of `kc.sh export --dir --users different_files`. */
export function usersFileJson(realm: string, users: KcUser[]): string {
  return jackson({ realm, users });
}

/** A service account (not a person): the reader leaves it out with a warning. */
export function serviceAccountUser(rng: Rng): KcUser {
  return {
    id: uuid(rng),
    username: 'service-account-backend',
    enabled: true,
    createdTimestamp: when(20),
    serviceAccountClientId: 'backend',
    realmRoles: ['default-roles-acme'],
  };
}

/** A realm export whose otp credentials the core cannot verify, and other broken users. */
export function keycloakBroken(rng: Rng): { name: string; content: string; shows: string } {
  const u = (username: string, credentials: KcUser[]): KcUser => ({
    id: uuid(rng),
    username,
    email: `${username}.kc@example.com`,
    emailVerified: true,
    enabled: true,
    federatedIdentities: [{ identityProvider: 'google', userId: `1050000000000000${username.length}`, userName: username }],
    credentials,
  });
  const users = [
    u('eight', [otpCredential(rng.word(20), rng, 'eight digits', 1, { digits: 8 })]),
    u('sha256', [otpCredential(rng.word(20), rng, 'sha256', 1, { algorithm: 'HmacSHA256' })]),
    u('hotp', [otpCredential(rng.word(20), rng, 'counter', 1, { subType: 'hotp', counter: 3 })]),
    u('garbled', [{ type: 'otp', secretData: '{"value": ', credentialData: '{}' }]),
    { username: 'no-id', email: 'no-id.kc@example.com' },
  ];
  return {
    name: 'keycloak-otp.json',
    content: realmExportJson('acme', users),
    shows:
      'a Keycloak realm export: otp credentials with 8 digits, HmacSHA256, a counter-based (hotp) one, secretData that is not JSON, a user without id',
  };
}
