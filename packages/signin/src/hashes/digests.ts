// The building blocks of the legacy checkers: digests, HMAC, PBKDF2 and scrypt over bytes (node:crypto, and
// hash-wasm for MD4 and scrypt, which OpenSSL 3 no longer offers by default), and the text encodings hashes are
// stored in (hex, standard and web-safe base64, passlib's "ab64").
import { createHash, createHmac, pbkdf2 as pbkdf2Callback } from 'node:crypto';
import { promisify } from 'node:util';
import { md4, scrypt } from 'hash-wasm';

const pbkdf2Async = promisify(pbkdf2Callback);

export type Digest = 'md5' | 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';

export const DIGEST_BYTES: Record<Digest, number> = { md5: 16, sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64 };

/** `sha-256`, `SHA256`, `sha_256`, `HmacSHA256` and `PBKDF2WithHmacSHA256` all name sha256. */
export function digestName(text: string | number | undefined): Digest | undefined {
  if (text === undefined) return undefined;
  const t = String(text)
    .toLowerCase()
    .replace(/^(?:pbkdf2withhmac|hmac)/, '')
    .replace(/[-_]/g, '');
  return (Object.keys(DIGEST_BYTES) as Digest[]).find((d) => d === t);
}

export function digest(algorithm: Digest, ...parts: Uint8Array[]): Buffer {
  const h = createHash(algorithm);
  for (const p of parts) h.update(p);
  return h.digest();
}

export function hmac(algorithm: Digest, key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const h = createHmac(algorithm, key);
  for (const p of parts) h.update(p);
  return h.digest();
}

export async function md4Digest(data: Uint8Array): Promise<Buffer> {
  return Buffer.from(await md4(data), 'hex');
}

/** PBKDF2-HMAC, off the main thread (node:crypto's libuv pool). */
export async function pbkdf2(
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
  algorithm: Digest,
): Promise<Buffer> {
  return pbkdf2Async(password, salt, iterations, length, algorithm);
}

export async function scryptBytes(
  password: Uint8Array,
  salt: Uint8Array,
  n: number,
  r: number,
  p: number,
  length: number,
): Promise<Buffer> {
  const out = await scrypt({ password, salt, costFactor: n, blockSize: r, parallelism: p, hashLength: length, outputType: 'binary' });
  return Buffer.from(out);
}

export const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export function fromHex(text: string): Buffer | undefined {
  return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** Standard or web-safe base64, padded or not. */
export function fromBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** passlib's adapted base64: `.` for `+`, no padding. */
export function fromAb64(text: string): Buffer | undefined {
  return /^[A-Za-z0-9./]*$/.test(text) ? Buffer.from(text.replace(/\./g, '+'), 'base64') : undefined;
}

/** A stored digest in hex when it has exactly the digest's hex length, else base64. */
export function storedDigest(text: string, bytes: number): Buffer | undefined {
  if (text.length === bytes * 2) {
    const hex = fromHex(text);
    if (hex) return hex;
  }
  return fromBase64(text);
}
