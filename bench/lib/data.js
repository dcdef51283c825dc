// Deterministic bench data: the mixed user population of issue 6 as canonical NDJSON, and Firebase
// `auth:export` files with their hash config. Written once into bench/data/ and reused while the recipe holds.
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import base32 from 'hi-base32';
import { computeHashSamples, SCRYPT_CONFIG } from './hashes.js';

export const DATA_DIR = new URL('../data/', import.meta.url).pathname;
// Bump when the shape of generated records changes, so stale files are regenerated.
const RECIPE_VERSION = 2;
const BASE_TIME = 1_600_000_000_000;
const PROVIDERS = ['google', 'github', 'facebook', 'apple'];
const FIREBASE_PROVIDERS = ['google.com', 'github.com', 'facebook.com', 'apple.com'];

let samplesPromise;
function hashSamples() {
  samplesPromise ??= computeHashSamples();
  return samplesPromise;
}

const pad = (n, width) => String(n).padStart(width, '0');
const phoneOf = (i) => `+4420${pad(i, 8)}`;
const smsOf = (i) => `+1555${pad(i, 7)}`;
function totpSecret(i) {
  return base32.encode(createHash('sha1').update(`totp-${i}`).digest()).replace(/=+$/, '');
}

/**
 * The mix: first factor 60% email-password (bcrypt, argon2id, external scrypt in equal parts; half of them
 * with a verified email), 20% social, 20% phone sign-in; on top of that, 15% of users have a TOTP device and
 * 10% an email or SMS one-time-code factor (spread over every kind of first factor).
 * kind 'email-password': every user an email-password user with an unverified email.
 */
export function mixedUser(i, samples, kind = 'mixed') {
  const b = kind === 'email-password' ? i % 12 : i % 20;
  const user = { id: `u${i}`, timeJoined: BASE_TIME + i * 1000 };
  if (b < 12) {
    user.email = `user${i}@bench.example`;
    // Email-password-only sets isolate the store: one password-hash import per user, so no verified email
    // (which adds an email-verification token and its consumption).
    user.emailVerified = kind === 'email-password' ? false : i % 2 === 0;
    const k = Math.floor(i / 3) % samples.bcrypt.length;
    const format = i % 3;
    user.password =
      format === 0 ? { hash: samples.bcrypt[k] } : format === 1 ? { hash: samples.argon2[k] } : { hash: samples.scrypt[k].imported };
  } else if (b < 16) {
    user.email = `user${i}@bench.example`;
    user.emailVerified = true;
    user.thirdParty = [{ providerId: PROVIDERS[i % 4], userId: `tp${pad(i, 9)}`, email: user.email, emailVerified: true }];
  } else {
    user.phoneNumber = phoneOf(i);
  }
  if (kind === 'email-password') return user;
  const h = (i * 7 + 3) % 20;
  if (h < 3) user.totp = [{ secret: totpSecret(i), period: 30, skew: 1, deviceName: 'authenticator' }];
  else if (h === 3) user.otpFactors = { email: user.email ?? `mfa${i}@bench.example` };
  else if (h === 4) user.otpFactors = user.phoneNumber ? { email: `mfa${i}@bench.example` } : { phoneNumber: smsOf(i) };
  return user;
}

/** One Firebase `auth:export` user: 70% password (scrypt), 15% social, 10% phone, 5% password + SMS MFA. */
export function firebaseUser(i, samples) {
  const b = i % 20;
  const u = { localId: `fb${pad(i, 8)}` };
  const created = String(BASE_TIME + i * 1000);
  if (b < 14 || b === 19) {
    const s = samples.scrypt[i % samples.scrypt.length];
    u.email = `user${i}@bench.example`;
    u.emailVerified = i % 2 === 0;
    u.passwordHash = s.passwordHash;
    u.salt = s.salt;
    u.displayName = `User ${i}`;
    u.providerUserInfo = [{ providerId: 'password', rawId: u.email, email: u.email, displayName: u.displayName }];
    if (b === 19) u.mfaInfo = [{ mfaEnrollmentId: `mfa${i}`, displayName: 'phone', phoneInfo: smsOf(i), enrolledAt: created }];
  } else if (b < 17) {
    u.email = `user${i}@bench.example`;
    u.emailVerified = true;
    u.displayName = `User ${i}`;
    u.providerUserInfo = [{ providerId: FIREBASE_PROVIDERS[i % 4], rawId: `1${pad(i, 20)}`, email: u.email, displayName: u.displayName }];
  } else {
    u.phoneNumber = phoneOf(i);
    u.providerUserInfo = [{ providerId: 'phone', rawId: u.phoneNumber, phoneNumber: u.phoneNumber }];
  }
  u.createdAt = created;
  u.lastSignedInAt = created;
  return u;
}

/** The console's "Password hash parameters" block, as an operator would paste it. */
export function firebaseHashConfigText() {
  return [
    'hash_config {',
    '  algorithm: SCRYPT,',
    `  base64_signer_key: ${SCRYPT_CONFIG.signerKey},`,
    `  base64_salt_separator: ${SCRYPT_CONFIG.saltSeparator},`,
    `  rounds: ${SCRYPT_CONFIG.rounds},`,
    `  mem_cost: ${SCRYPT_CONFIG.memCost},`,
    '}',
    '',
  ].join('\n');
}

async function writeLines(path, n, lineOf, { head = '', sep = '\n', tail = '' } = {}) {
  const tmp = `${path}.partial`;
  const out = createWriteStream(tmp);
  let chunk = head;
  for (let i = 0; i < n; i++) {
    chunk += (i > 0 ? sep : '') + lineOf(i);
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk + tail);
  await once(out, 'finish');
  renameSync(tmp, path);
}

/**
 * Generate (or reuse) one dataset; returns its paths. kind: mixed | email-password | firebase | firebase-twice (a
 * Firebase export of n/2 users concatenated with itself: every record of the second half a duplicate).
 */
export async function ensureDataset(kind, n, { offset = 0, log = () => {} } = {}) {
  mkdirSync(DATA_DIR, { recursive: true });
  const base = `${kind}-${n}${offset ? `-from-${offset}` : ''}`;
  const firebase = kind === 'firebase' || kind === 'firebase-twice';
  const file = join(DATA_DIR, firebase ? `${base}.json` : `${base}.ndjson`);
  const metaFile = `${file}.meta.json`;
  const hashConfig = join(DATA_DIR, 'firebase-hash-config.txt');
  const meta = { kind, n, offset, version: RECIPE_VERSION };
  if (firebase && !existsSync(hashConfig)) writeFileSync(hashConfig, firebaseHashConfigText());
  if (existsSync(file) && existsSync(metaFile) && readFileSync(metaFile, 'utf8') === JSON.stringify(meta)) {
    return { file, hashConfig, signerKey: SCRYPT_CONFIG.signerKey, reused: true };
  }
  const started = Date.now();
  const samples = await hashSamples();
  if (firebase) {
    const half = Math.ceil(n / 2);
    const userOf = kind === 'firebase-twice' ? (i) => firebaseUser(offset + (i % half), samples) : (i) => firebaseUser(offset + i, samples);
    await writeLines(file, n, (i) => JSON.stringify(userOf(i)), {
      head: '{"users": [\n',
      sep: ',\n',
      tail: '\n]}\n',
    });
  } else {
    await writeLines(file, n, (i) => JSON.stringify(mixedUser(offset + i, samples, kind)), { tail: '\n' });
  }
  writeFileSync(metaFile, JSON.stringify(meta));
  log(`generated ${file} (${n} users) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { file, hashConfig, signerKey: SCRYPT_CONFIG.signerKey, reused: false };
}
