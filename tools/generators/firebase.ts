// Generated Firebase `auth:export` users (scrypt hashes over a generated signer key) and their hash config.
import type { HashConfig } from '../../src/sources/index.js';
import { firebaseScryptUser, generateSignerKey, toWebSafe, type ScryptConfig } from './hashes.js';
import type { KnownCredential, GeneratedSet } from './canonical.js';
import type { Rng } from '../../src/shared/rng.js';

export type FirebaseUser = Record<string, unknown>;

export function fixtureScryptConfig(rng: Rng): ScryptConfig {
  return { signerKey: generateSignerKey(rng), saltSeparator: 'Bw==', rounds: 8, memCost: 14 };
}

/** The block as the console shows it. */
export function hashConfigBlock(c: ScryptConfig): string {
  return `hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: ${c.signerKey},\n  base64_salt_separator: ${c.saltSeparator},\n  rounds: ${c.rounds},\n  mem_cost: ${c.memCost},\n}\n`;
}

export function hashConfigJson(c: ScryptConfig): string {
  return (
    JSON.stringify(
      {
        algorithm: 'SCRYPT',
        base64_signer_key: c.signerKey,
        base64_salt_separator: c.saltSeparator,
        rounds: c.rounds,
        mem_cost: c.memCost,
      },
      null,
      2,
    ) + '\n'
  );
}

export function toHashConfig(c: ScryptConfig): HashConfig {
  return { ...c };
}

export async function firebaseFixtureUsers(rng: Rng, scrypt: ScryptConfig): Promise<GeneratedSet<FirebaseUser>> {
  const users: FirebaseUser[] = [];
  const credentials: KnownCredential[] = [];
  const created = (n: number): string => String(Date.UTC(2022, 5, 1 + n));
  const withPassword = async (id: string, email: string, notes: string, extra: FirebaseUser = {}): Promise<void> => {
    const pw = `${id.slice(3)}-${rng.word(8)}`;
    const hash = await firebaseScryptUser(pw, rng, scrypt);
    users.push({
      localId: id,
      email,
      emailVerified: true,
      passwordHash: hash.passwordHash,
      salt: hash.salt,
      lastSignedInAt: created(30),
      createdAt: created(users.length),
      providerUserInfo: [{ providerId: 'password', rawId: email, email, federatedId: email }],
      ...extra,
    });
    credentials.push({ id, email, password: pw, algorithm: 'external_scrypt', totp: [], notes });
  };

  await withPassword('fb-ann', 'ann@example.com', 'scrypt password; profile (displayName, photoUrl, custom claims)', {
    displayName: 'Ann Archer',
    photoUrl: 'https://example.com/photos/ann.jpg',
    customAttributes: '{"plan":"pro","admin":true}',
  });
  await withPassword('fb-ben', 'ben@example.com', 'scrypt password and Google (two first factors)');
  (users[1]!['providerUserInfo'] as FirebaseUser[]).push({
    providerId: 'google.com',
    rawId: '108000000000000000201',
    email: 'ben@example.com',
    displayName: 'Ben',
  });
  users.push({
    localId: 'fb-col',
    email: 'col@example.com',
    emailVerified: true,
    createdAt: created(2),
    displayName: 'Col',
    providerUserInfo: [{ providerId: 'google.com', rawId: '108000000000000000202', email: 'col@example.com', displayName: 'Col' }],
  });
  credentials.push({ id: 'fb-col', email: 'col@example.com', totp: [], notes: 'Google sign-in only' });
  users.push({
    localId: 'fb-dot',
    phoneNumber: '+14155550201',
    createdAt: created(3),
    providerUserInfo: [{ providerId: 'phone', rawId: '+14155550201', phoneNumber: '+14155550201' }],
  });
  credentials.push({ id: 'fb-dot', totp: [], notes: 'phone sign-in +14155550201' });
  await withPassword('fb-eli', 'eli@example.com', 'scrypt password; SMS second factor +14155550202', {
    mfaInfo: [{ mfaEnrollmentId: 'enr-eli-1', displayName: 'Mobile', phoneInfo: '+14155550202', enrolledAt: '2023-02-01T10:00:00Z' }],
  });
  users.push({
    localId: 'fb-fox',
    email: 'fox@example.com',
    emailVerified: false,
    createdAt: created(5),
    providerUserInfo: [
      { providerId: 'github.com', rawId: '5500201', email: 'fox@example.com' },
      { providerId: 'facebook.com', rawId: '10200000000201', email: 'fox@example.com' },
    ],
  });
  credentials.push({ id: 'fb-fox', email: 'fox@example.com', totp: [], notes: 'GitHub and Facebook' });
  return { users, credentials };
}

/** The same users as the Admin SDK / raw API gives them: web-safe, unpadded base64. */
export function toWebSafeExport(users: FirebaseUser[]): FirebaseUser[] {
  return users.map((u) =>
    typeof u['passwordHash'] === 'string' ? { ...u, passwordHash: toWebSafe(u['passwordHash']), salt: toWebSafe(String(u['salt'])) } : u,
  );
}

/** `{"users": [...]}` with one user a line, as `firebase auth:export` writes it. */
export function firebaseExportJson(users: FirebaseUser[]): string {
  return `{"users": [\n${users.map((u) => JSON.stringify(u)).join(',\n')}\n]}\n`;
}
