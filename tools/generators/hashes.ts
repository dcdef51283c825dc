// Password hashes with known passwords, made deterministic by taking salts from a seeded Rng: bcrypt
// (bcryptjs), argon2id (hash-wasm) and Firebase's scrypt variant (hash-wasm scrypt + AES-256-CTR).
import bcrypt from 'bcryptjs';
import { argon2id } from 'hash-wasm';
import { buildExternalScrypt } from '../../src/hashes/formats.js';
import { computeExternalScryptHash } from '../../src/hashes/verify.js';
import type { Rng } from '../../src/shared/rng.js';

/** Firebase's scrypt parameters with the signer key; what `HashConfig` holds once read. */
export interface ScryptConfig {
  signerKey: string;
  saltSeparator: string;
  rounds: number;
  memCost: number;
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `$2b$<cost>$...` with a salt from the Rng (low cost: generated data, not real accounts). */
export function bcryptHash(password: string, rng: Rng, cost = 6, prefix: '2a' | '2b' | '2y' = '2b'): string {
  let salt = '';
  for (let i = 0; i < 21; i++) salt += BCRYPT_ALPHABET[rng.int(0, 63)];
  // The 22nd character carries only 2 bits; bcrypt ignores the rest, so keep it canonical.
  salt += '.Oeu'[rng.int(0, 3)];
  const hash = bcrypt.hashSync(password, `$2a$${String(cost).padStart(2, '0')}$${salt}`);
  return `$${prefix}` + hash.slice(3);
}

/** `$argon2id$v=19$m=<memoryKiB>,t=2,p=1$<salt>$<hash>` with a small memory cost. */
export async function argon2Hash(password: string, rng: Rng, memoryKiB = 1024, iterations = 2): Promise<string> {
  return argon2id({
    password,
    salt: rng.bytes(16),
    parallelism: 1,
    iterations,
    memorySize: memoryKiB,
    hashLength: 32,
    outputType: 'encoded',
  });
}

export function generateSignerKey(rng: Rng): string {
  return rng.bytes(64).toString('base64');
}

/** Firebase's exported `passwordHash` (standard base64) for a password and a salt (bytes). */
export async function firebaseScryptHash(password: string, salt: Buffer, config: ScryptConfig): Promise<string> {
  return (await computeExternalScryptHash(password, { salt, ...config })).toString('base64');
}

export interface FirebaseScryptUser {
  passwordHash: string;
  salt: string;
}

export async function firebaseScryptUser(password: string, rng: Rng, config: ScryptConfig): Promise<FirebaseScryptUser> {
  const salt = rng.bytes(12);
  return { passwordHash: await firebaseScryptHash(password, salt, config), salt: salt.toString('base64') };
}

/** The canonical `$f_scrypt$...` string of a Firebase scrypt user. */
export function externalScryptString(user: FirebaseScryptUser, config: ScryptConfig): string {
  return buildExternalScrypt({
    passwordHash: user.passwordHash,
    salt: user.salt,
    memCost: config.memCost,
    rounds: config.rounds,
    saltSeparator: config.saltSeparator,
  });
}

/** Web-safe, unpadded base64 (as the Admin SDK gives it). */
export function toWebSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
