// Verify a password against a stored hash exactly as the reference core would at sign-in: used by the
// sandbox core's /recipe/signin and by the operator's password spot-check.
import { createCipheriv, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { argon2Verify, scrypt } from 'hash-wasm';
import { detectAlgorithm, parseExternalScrypt } from './formats.js';

export type VerifyOutcome =
  | { result: 'match' }
  | { result: 'mismatch' }
  /** The hash cannot be checked (malformed, or a variant the verifier does not support). */
  | { result: 'unsupported'; reason: string }
  /** The external scrypt variant needs the signer key, and none was given. */
  | { result: 'missing-signer-key' };

export interface VerifyOptions {
  /** base64 signer key of the external scrypt variant. */
  signerKey?: string;
}

export async function verifyPassword(hash: string, password: string, options: VerifyOptions = {}): Promise<VerifyOutcome> {
  const algorithm = detectAlgorithm(hash);
  if (algorithm === 'external_scrypt') return verifyExternalScrypt(hash, password, options.signerKey);
  if (algorithm === 'bcrypt') return verifyBcrypt(hash, password);
  if (algorithm === 'argon2') return verifyArgon2(hash, password);
  return { result: 'unsupported', reason: 'the hash is not bcrypt, argon2 or the external scrypt variant' };
}

const BCRYPT_SHAPE = /^\$2[abxy]\$(\d\d)\$[./A-Za-z0-9]{53}$/;

async function verifyBcrypt(hash: string, password: string): Promise<VerifyOutcome> {
  const shape = BCRYPT_SHAPE.exec(hash);
  if (!shape) return { result: 'unsupported', reason: 'the bcrypt hash is not `$2?$<cost>$` followed by 53 characters' };
  const cost = Number(shape[1]);
  if (cost < 4 || cost > 31) return { result: 'unsupported', reason: `bcrypt cost ${cost} is outside 4..31` };
  // The reference core rewrites $2b/$2x/$2y to $2a before checking; so do we.
  const normalised = '$2a' + hash.slice(3);
  try {
    return (await bcrypt.compare(password, normalised)) ? { result: 'match' } : { result: 'mismatch' };
  } catch (err) {
    return { result: 'unsupported', reason: `bcrypt could not check this hash (${(err as Error).message})` };
  }
}

const ARGON2_SHAPE = /^\$argon2(id|i|d)\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

async function verifyArgon2(hash: string, password: string): Promise<VerifyOutcome> {
  if (!ARGON2_SHAPE.test(hash)) {
    return {
      result: 'unsupported',
      reason: 'the argon2 hash is not a PHC string with v=19, m, t, p and unpadded base64 salt and hash',
    };
  }
  try {
    return (await argon2Verify({ password, hash })) ? { result: 'match' } : { result: 'mismatch' };
  } catch (err) {
    return { result: 'unsupported', reason: `argon2 could not check this hash (${(err as Error).message})` };
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isStandardBase64(text: string): boolean {
  return BASE64.test(text);
}

async function verifyExternalScrypt(hash: string, password: string, signerKey: string | undefined): Promise<VerifyOutcome> {
  const p = parseExternalScrypt(hash);
  if (!p) return { result: 'unsupported', reason: 'the external scrypt string does not have 7 parts with m=, r= and s=' };
  if (!signerKey) return { result: 'missing-signer-key' };
  if (p.memCost < 1 || p.memCost > 20 || p.rounds < 1 || p.rounds > 32) {
    return { result: 'unsupported', reason: `scrypt parameters m=${p.memCost} r=${p.rounds} are outside what can be checked` };
  }
  const computed = await computeExternalScryptHash(password, {
    salt: Buffer.from(p.salt, 'base64'),
    saltSeparator: p.saltSeparator,
    memCost: p.memCost,
    rounds: p.rounds,
    signerKey,
  });
  // The reference core compares the standard, padded base64 of the result with the stored text exactly.
  const expected = Buffer.from(p.passwordHash, 'utf8');
  const actual = Buffer.from(computed.toString('base64'), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? { result: 'match' } : { result: 'mismatch' };
}

export interface ExternalScryptInputs {
  /** The user's salt, as bytes. */
  salt: Uint8Array;
  /** base64 salt separator of the hash config. */
  saltSeparator: string;
  memCost: number;
  rounds: number;
  /** base64 signer key. */
  signerKey: string;
}

/**
 * The external scrypt variant (Firebase's modified scrypt): scrypt(password, salt || separator, N = 2^mem,
 * r = rounds, p = 1, 64 bytes), then AES-256-CTR with dk[0..32) and a zero IV over the signer key.
 */
export async function computeExternalScryptHash(password: string | Uint8Array, inputs: ExternalScryptInputs): Promise<Buffer> {
  const derived = await scrypt({
    // A string is encoded as the reference core encodes it (US-ASCII); bytes are hashed as given.
    password: typeof password === 'string' ? toUsAscii(password) : password,
    salt: Buffer.concat([inputs.salt, Buffer.from(inputs.saltSeparator, 'base64')]),
    costFactor: 2 ** inputs.memCost,
    blockSize: inputs.rounds,
    parallelism: 1,
    hashLength: 64,
    outputType: 'binary',
  });
  const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, 32), Buffer.alloc(16, 0));
  return Buffer.concat([cipher.update(Buffer.from(inputs.signerKey, 'base64')), cipher.final()]);
}

/** The reference core encodes the password as US-ASCII: every non-ASCII character becomes `?`. */
export function toUsAscii(password: string): Uint8Array {
  const out: number[] = [];
  for (const ch of password) out.push(ch.codePointAt(0)! < 128 ? ch.codePointAt(0)! : 0x3f);
  return Uint8Array.from(out);
}

export function hasNonAscii(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- the ASCII range itself is the point
  return /[^\x00-\x7f]/.test(text);
}
