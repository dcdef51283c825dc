// Fast writers of large generated exports (benchmarks): a few hashes are computed once and reused, lines are
// built as strings and written in ~1 MB batches with backpressure, so a million users take seconds.
import { createWriteStream, type WriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { PasswordAlgorithm } from '../../src/records/types.js';
import { argon2Hash, bcryptHash, externalScryptString, firebaseScryptUser, type FirebaseScryptUser, type ScryptConfig } from './hashes.js';
import { fixtureScryptConfig, hashConfigBlock } from './firebase.js';
import { createRng, type Rng } from '../../src/shared/rng.js';
import { encodeSecret } from './totp.js';

export interface PoolEntry {
  algorithm: PasswordAlgorithm;
  password: string;
  hash: string;
}

export interface BulkInfo {
  count: number;
  scrypt: ScryptConfig;
  hashConfigPath?: string;
  /** User i with a password of algorithm A uses pool entry `pools[A][i % pools[A].length]`. */
  pools: Record<PasswordAlgorithm, PoolEntry[]>;
}

export interface BulkOptions {
  seed?: number;
  poolSize?: number;
  scrypt?: ScryptConfig;
}

/** Batches writes; waits for 'drain' when the stream's buffer is full. */
export class BatchWriter {
  private parts: string[] = [];
  private size = 0;
  constructor(private readonly stream: WriteStream) {}
  async write(text: string): Promise<void> {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= 1 << 20) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    if (!this.stream.write(chunk)) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }
  async close(): Promise<void> {
    await this.flush();
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(resolve);
    });
  }
}

export async function scryptPool(rng: Rng, scrypt: ScryptConfig, size: number): Promise<Array<FirebaseScryptUser & { password: string }>> {
  const pool: Array<FirebaseScryptUser & { password: string }> = [];
  for (let k = 0; k < size; k++) {
    const password = `bench-scrypt-${k}`;
    pool.push({ ...(await firebaseScryptUser(password, rng, scrypt)), password });
  }
  return pool;
}

/**
 * A Firebase export of `count` users: 70% scrypt passwords (a tenth of them also Google), 15% Google only,
 * 5% phone sign-in, 10% password with an SMS factor. The hash config is written to `<path>.hash-config.txt`.
 */
export async function writeFirebaseExport(path: string, count: number, options: BulkOptions = {}): Promise<BulkInfo> {
  const rng = createRng(options.seed ?? 11);
  const scrypt = options.scrypt ?? fixtureScryptConfig(rng);
  const pool = await scryptPool(rng, scrypt, options.poolSize ?? 4);
  const out = new BatchWriter(createWriteStream(path));
  await out.write('{"users": [\n');
  for (let i = 0; i < count; i++) {
    const kind = i % 20;
    const id = `fbu${i.toString(36).padStart(8, '0')}`;
    const email = `user${i}@example.com`;
    const created = String(1600000000000 + i * 1000);
    const sep = i + 1 < count ? ',\n' : '\n';
    let line: string;
    if (kind < 14 || kind >= 18) {
      const p = pool[i % pool.length]!;
      const google = kind === 0 ? `,{"providerId":"google.com","rawId":"1080${i}","email":"${email}"}` : '';
      const mfa = kind >= 18 ? `,"mfaInfo":[{"mfaEnrollmentId":"e${i}","phoneInfo":"+1555${String(i).padStart(8, '0')}"}]` : '';
      line = `{"localId":"${id}","email":"${email}","emailVerified":true,"passwordHash":"${p.passwordHash}","salt":"${p.salt}","lastSignedInAt":"${created}","createdAt":"${created}","providerUserInfo":[{"providerId":"password","rawId":"${email}","email":"${email}","federatedId":"${email}"}${google}]${mfa}}`;
    } else if (kind < 17) {
      line = `{"localId":"${id}","email":"${email}","emailVerified":true,"displayName":"User ${i}","createdAt":"${created}","providerUserInfo":[{"providerId":"google.com","rawId":"1080${i}","email":"${email}","displayName":"User ${i}"}]}`;
    } else {
      const phone = `+1444${String(i).padStart(8, '0')}`;
      line = `{"localId":"${id}","phoneNumber":"${phone}","createdAt":"${created}","providerUserInfo":[{"providerId":"phone","rawId":"${phone}","phoneNumber":"${phone}"}]}`;
    }
    await out.write(line + sep);
  }
  await out.write(']}\n');
  await out.close();
  const hashConfigPath = `${path}.hash-config.txt`;
  await writeFile(hashConfigPath, hashConfigBlock(scrypt));
  return {
    count,
    scrypt,
    hashConfigPath,
    pools: {
      external_scrypt: pool.map((p) => ({ algorithm: 'external_scrypt', password: p.password, hash: externalScryptString(p, scrypt) })),
      bcrypt: [],
      argon2: [],
    },
  };
}

export interface CanonicalMix {
  /** Fractions of first factors; the rest are phone sign-in users. */
  password: number;
  social: number;
  /** Independent fractions of users that get a TOTP device, and an email or SMS factor. */
  totp: number;
  otp: number;
}

export const BENCH_MIX: CanonicalMix = { password: 0.6, social: 0.2, totp: 0.15, otp: 0.1 };

/** Canonical NDJSON: passwords spread over bcrypt, argon2 and external scrypt (pooled hashes); the scrypt
 * parameters with the signer key go to `<path>.hash-config.txt`. */
export async function writeCanonicalNdjson(
  path: string,
  count: number,
  options: BulkOptions & { mix?: CanonicalMix } = {},
): Promise<BulkInfo> {
  const rng = createRng(options.seed ?? 12);
  const scrypt = options.scrypt ?? fixtureScryptConfig(rng);
  const size = options.poolSize ?? 4;
  const mix = options.mix ?? BENCH_MIX;
  const pools: Record<PasswordAlgorithm, PoolEntry[]> = { bcrypt: [], argon2: [], external_scrypt: [] };
  for (let k = 0; k < size; k++) {
    pools.bcrypt.push({ algorithm: 'bcrypt', password: `bench-bcrypt-${k}`, hash: bcryptHash(`bench-bcrypt-${k}`, rng, 4) });
    pools.argon2.push({ algorithm: 'argon2', password: `bench-argon2-${k}`, hash: await argon2Hash(`bench-argon2-${k}`, rng, 64, 1) });
  }
  pools.external_scrypt = (await scryptPool(rng, scrypt, size)).map((p) => ({
    algorithm: 'external_scrypt',
    password: p.password,
    hash: externalScryptString(p, scrypt),
  }));
  const algorithms: PasswordAlgorithm[] = ['bcrypt', 'argon2', 'external_scrypt'];
  const out = new BatchWriter(createWriteStream(path));
  for (let i = 0; i < count; i++) {
    const email = `user${i}@example.com`;
    const r = rng.next();
    const user: Record<string, unknown> = { id: `cu${i}` };
    if (r < mix.password) {
      const algorithm = algorithms[i % 3]!;
      const entry = pools[algorithm][i % size]!;
      Object.assign(user, { email, emailVerified: true, password: { hash: entry.hash, algorithm } });
    } else if (r < mix.password + mix.social) {
      Object.assign(user, {
        email,
        thirdParty: [{ providerId: i % 2 ? 'google' : 'github', userId: `s${i}`, email, emailVerified: true }],
      });
    } else {
      user['phoneNumber'] = `+1555${String(i).padStart(8, '0')}`;
    }
    if (rng.next() < mix.totp) user['totp'] = [{ secret: encodeSecret(rng.bytes(20), 'base32'), deviceName: 'phone' }];
    if (rng.next() < mix.otp) {
      user['otpFactors'] = user['email'] !== undefined && i % 2 ? { email } : { phoneNumber: `+1666${String(i).padStart(8, '0')}` };
    }
    user['timeJoined'] = 1600000000000 + i * 1000;
    await out.write(JSON.stringify(user) + '\n');
  }
  await out.close();
  // The signer key the external scrypt users need, in the console's form.
  const hashConfigPath = `${path}.hash-config.txt`;
  await writeFile(hashConfigPath, hashConfigBlock(scrypt));
  return { count, scrypt, hashConfigPath, pools };
}
