// crypt(3)'s md5-crypt (`$1$`, Poul-Henning Kamp's FreeBSD algorithm) and sha-crypt (`$5$`, `$6$`, Ulrich
// Drepper's "Unix crypt using SHA-256 and SHA-512"), built on node:crypto's digests. No npm package for these is
// both maintained and typed (unixcrypt covers $5$/$6$ only, apache-md5 and md5-crypt are unmaintained), and the
// algorithms are short: each is the specification's steps, tested against its published vectors.
import { createHash } from 'node:crypto';
import { sameText } from './constant-time.js';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** crypt's base-64: `n` characters from the low bits of a 24-bit group upward. */
function to64(value: number, n: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < n; i++) {
    out += ITOA64[v & 0x3f];
    v >>>= 6;
  }
  return out;
}

/** The groups of three digest bytes (b2, b1, b0) each written as 4 characters, then the tail. */
function encodeGroups(d: Buffer, groups: number[][], tail: number[], tailChars: number): string {
  let out = '';
  for (const [a, b, c] of groups) out += to64((d[a!]! << 16) | (d[b!]! << 8) | d[c!]!, 4);
  const t = tail.map((i) => (i < 0 ? 0 : d[i]!));
  return out + to64((t[0]! << 16) | (t[1]! << 8) | t[2]!, tailChars);
}

const md5 = (...parts: Buffer[]): Buffer => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** md5-crypt of `password` with `salt` (at most 8 characters): the 22-character checksum. */
export function md5CryptChecksum(password: Buffer, salt: Buffer): string {
  const magic = Buffer.from('$1$');
  const alt = md5(password, salt, password);
  const ctx = createHash('md5').update(password).update(magic).update(salt);
  for (let left = password.length; left > 0; left -= 16) ctx.update(alt.subarray(0, Math.min(left, 16)));
  for (let i = password.length; i > 0; i >>>= 1) ctx.update(i & 1 ? Buffer.alloc(1) : password.subarray(0, 1));
  let final = ctx.digest();
  for (let i = 0; i < 1000; i++) {
    const c = createHash('md5');
    c.update(i & 1 ? password : final);
    if (i % 3) c.update(salt);
    if (i % 7) c.update(password);
    c.update(i & 1 ? final : password);
    final = c.digest();
  }
  return encodeGroups(
    final,
    [
      [0, 6, 12],
      [1, 7, 13],
      [2, 8, 14],
      [3, 9, 15],
      [4, 10, 5],
    ],
    [-1, -1, 11],
    2,
  );
}

const SHA256_GROUPS = [
  [0, 10, 20],
  [21, 1, 11],
  [12, 22, 2],
  [3, 13, 23],
  [24, 4, 14],
  [15, 25, 5],
  [6, 16, 26],
  [27, 7, 17],
  [18, 28, 8],
  [9, 19, 29],
];
const SHA512_GROUPS = [
  [0, 21, 42],
  [22, 43, 1],
  [44, 2, 23],
  [3, 24, 45],
  [25, 46, 4],
  [47, 5, 26],
  [6, 27, 48],
  [28, 49, 7],
  [50, 8, 29],
  [9, 30, 51],
  [31, 52, 10],
  [53, 11, 32],
  [12, 33, 54],
  [34, 55, 13],
  [56, 14, 35],
  [15, 36, 57],
  [37, 58, 16],
  [59, 17, 38],
  [18, 39, 60],
  [40, 61, 19],
  [62, 20, 41],
];

/** Repeat the digest `d` to fill `length` bytes. */
function stretch(d: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += d.length) d.copy(out, i, 0, Math.min(d.length, length - i));
  return out;
}

/** sha-crypt (`sha256` for `$5$`, `sha512` for `$6$`) of `password` with `salt` (at most 16 bytes) and `rounds`. */
export function shaCryptChecksum(algorithm: 'sha256' | 'sha512', password: Buffer, salt: Buffer, rounds: number): string {
  const size = algorithm === 'sha256' ? 32 : 64;
  const H = (...parts: Buffer[]): Buffer => {
    const h = createHash(algorithm);
    for (const p of parts) h.update(p);
    return h.digest();
  };
  const b = H(password, salt, password);
  const a = createHash(algorithm).update(password).update(salt);
  let left = password.length;
  for (; left > size; left -= size) a.update(b);
  a.update(b.subarray(0, left));
  for (let i = password.length; i > 0; i >>>= 1) a.update(i & 1 ? b : password);
  let c = a.digest();
  const dp = createHash(algorithm);
  for (let i = 0; i < password.length; i++) dp.update(password);
  const p = stretch(dp.digest(), password.length);
  const ds = createHash(algorithm);
  for (let i = 0; i < 16 + c[0]!; i++) ds.update(salt);
  const s = stretch(ds.digest(), salt.length);
  for (let i = 0; i < rounds; i++) {
    const h = createHash(algorithm);
    h.update(i & 1 ? p : c);
    if (i % 3) h.update(s);
    if (i % 7) h.update(p);
    h.update(i & 1 ? c : p);
    c = h.digest();
  }
  return algorithm === 'sha256' ? encodeGroups(c, SHA256_GROUPS, [-1, 31, 30], 3) : encodeGroups(c, SHA512_GROUPS, [-1, -1, 63], 2);
}

const CRYPT_FORM = /^\$(1|5|6)\$(?:rounds=(\d+)\$)?([^$]*)\$([./0-9A-Za-z]+)$/;

/** Check a password against a `$1$`, `$5$` or `$6$` string; undefined when the string is not of that form. */
export function checkCrypt(hash: string, password: string): boolean | undefined {
  const m = CRYPT_FORM.exec(hash);
  if (!m) return undefined;
  const [, id, roundsText, saltText, checksum] = m;
  const pw = Buffer.from(password, 'utf8');
  if (id === '1') {
    if (roundsText !== undefined) return undefined;
    return sameText(md5CryptChecksum(pw, Buffer.from(saltText!.slice(0, 8), 'utf8')), checksum!);
  }
  // The specification: rounds default 5000, clamped to 1000..999999999; the salt is cut to 16 characters.
  const rounds = roundsText === undefined ? 5000 : Math.min(Math.max(Number(roundsText), 1000), 999_999_999);
  const salt = Buffer.from(saltText!.slice(0, 16), 'utf8');
  return sameText(shaCryptChecksum(id === '5' ? 'sha256' : 'sha512', pw, salt, rounds), checksum!);
}
