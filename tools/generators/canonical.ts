// Generated canonical users with known passwords and secrets: every first factor, every hash format,
// TOTP in each encoding, email and SMS factors, an externalUserId.
import type { CanonicalUser } from '../../src/records/types.js';
import { argon2Hash, bcryptHash, externalScryptString, firebaseScryptUser, type ScryptConfig } from './hashes.js';
import type { Rng } from '../../src/shared/rng.js';
import { generateSecret, type GeneratedSecret } from './totp.js';

/** What the fixtures README lists for one user: never printed by the tool itself. */
export interface KnownCredential {
  id: string;
  email?: string;
  password?: string;
  algorithm?: string;
  totp: Array<GeneratedSecret & { deviceName?: string }>;
  notes: string;
}

export interface GeneratedSet<T> {
  users: T[];
  credentials: KnownCredential[];
}

function password(rng: Rng, name: string): string {
  return `${name}-${rng.word(8)}`;
}

export async function canonicalFixtureUsers(rng: Rng, scrypt: ScryptConfig): Promise<GeneratedSet<CanonicalUser>> {
  const credentials: KnownCredential[] = [];
  const users: CanonicalUser[] = [];
  const joined = (n: number): number => Date.UTC(2023, 0, 1 + n);

  const adaPw = password(rng, 'ada');
  const adaTotp = { ...generateSecret(rng, 'base32'), deviceName: "Ada's phone" };
  users.push({
    id: 'c-ada',
    email: 'ada@example.com',
    emailVerified: true,
    externalUserId: 'ext-ada-1815',
    password: { hash: bcryptHash(adaPw, rng), algorithm: 'bcrypt' },
    totp: [{ secret: adaTotp.secret, encoding: 'base32', period: 30, skew: 1, deviceName: adaTotp.deviceName }],
    timeJoined: joined(0),
  });
  credentials.push({
    id: 'c-ada',
    email: 'ada@example.com',
    password: adaPw,
    algorithm: 'bcrypt',
    totp: [adaTotp],
    notes: 'bcrypt; TOTP base32 with a device name; externalUserId ext-ada-1815',
  });

  const bobPw = password(rng, 'bob');
  const bobTotp = generateSecret(rng, 'base64');
  users.push({
    id: 'c-bob',
    email: 'bob@example.com',
    emailVerified: false,
    password: { hash: await argon2Hash(bobPw, rng) },
    totp: [{ secret: bobTotp.secret, encoding: 'base64' }],
    otpFactors: { phoneNumber: '+14155550102' },
    timeJoined: joined(1),
  });
  credentials.push({
    id: 'c-bob',
    email: 'bob@example.com',
    password: bobPw,
    algorithm: 'argon2',
    totp: [bobTotp],
    notes: 'argon2id (algorithm detected from the hash); TOTP base64 without a device name; SMS factor +14155550102',
  });

  const cyPw = password(rng, 'cy');
  const cyTotp = { ...generateSecret(rng, 'hex'), deviceName: 'Authenticator' };
  const cyScrypt = await firebaseScryptUser(cyPw, rng, scrypt);
  users.push({
    id: 'c-cy',
    email: 'cy@example.com',
    emailVerified: true,
    password: { hash: externalScryptString(cyScrypt, scrypt), algorithm: 'external_scrypt' },
    totp: [{ secret: cyTotp.secret, encoding: 'hex', period: 30, skew: 1, deviceName: cyTotp.deviceName }],
    timeJoined: joined(2),
  });
  credentials.push({
    id: 'c-cy',
    email: 'cy@example.com',
    password: cyPw,
    algorithm: 'external_scrypt',
    totp: [cyTotp],
    notes: 'external scrypt (needs the signer key); TOTP hex with a device name',
  });

  users.push({
    id: 'c-dee',
    email: 'dee@example.com',
    emailVerified: true,
    thirdParty: [{ providerId: 'google', userId: '108000000000000000001', email: 'dee@example.com', emailVerified: true }],
    otpFactors: { email: 'dee@example.com' },
    timeJoined: joined(3),
  });
  credentials.push({ id: 'c-dee', email: 'dee@example.com', totp: [], notes: 'Google sign-in only; email one-time-code factor' });

  const evePw = password(rng, 'eve');
  users.push({
    id: 'c-eve',
    email: 'eve@example.com',
    emailVerified: true,
    password: { hash: bcryptHash(evePw, rng), algorithm: 'bcrypt' },
    thirdParty: [{ providerId: 'github', userId: '5500001', email: 'eve@example.com', emailVerified: true }],
    otpFactors: { email: 'eve@example.com', phoneNumber: '+14155550105' },
    timeJoined: joined(4),
  });
  credentials.push({
    id: 'c-eve',
    email: 'eve@example.com',
    password: evePw,
    algorithm: 'bcrypt',
    totp: [],
    notes: 'two first factors (password and GitHub); email and SMS factors',
  });

  const fayTotp1 = { ...generateSecret(rng, 'base32'), deviceName: 'Work phone' };
  const fayTotp2 = generateSecret(rng, 'base32');
  users.push({
    id: 'c-fay',
    phoneNumber: '+14155550106',
    totp: [
      { secret: fayTotp1.secret, deviceName: fayTotp1.deviceName },
      { secret: fayTotp2.secret, encoding: 'base32', period: 30, skew: 0 },
    ],
    timeJoined: joined(5),
  });
  credentials.push({
    id: 'c-fay',
    totp: [fayTotp1, fayTotp2],
    notes: 'phone sign-in +14155550106 (passwordless); two TOTP devices, one unnamed',
  });

  return { users, credentials };
}
