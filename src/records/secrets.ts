// TOTP secrets: the core wants base32, exports carry base32, base64 or hex. Decode bytes, re-encode.
import base32 from 'hi-base32';
import type { SecretEncoding } from './types.js';

export type DecodedSecret = { ok: true; bytes: Buffer } | { ok: false; reason: string };

const BASE32 = /^[A-Z2-7]+=*$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** Decode a secret in its stated encoding. Spaces and dashes (as printed for humans) are ignored. */
export function decodeSecret(secret: string, encoding: SecretEncoding = 'base32'): DecodedSecret {
  const compact = secret.replace(/[\s-]/g, '');
  if (compact === '') return { ok: false, reason: 'the secret is empty' };
  switch (encoding) {
    case 'base32': {
      const upper = compact.toUpperCase();
      if (!BASE32.test(upper)) return { ok: false, reason: 'the secret has characters outside the base32 alphabet (A-Z, 2-7)' };
      const unpadded = upper.replace(/=+$/, '');
      if ([1, 3, 6].includes(unpadded.length % 8)) return { ok: false, reason: 'the base32 secret has an impossible length' };
      return { ok: true, bytes: Buffer.from(base32.decode.asBytes(unpadded)) };
    }
    case 'base64': {
      const text = secret.replace(/\s/g, '');
      if (!BASE64.test(text) && !BASE64URL.test(text)) return { ok: false, reason: 'the secret is not valid base64' };
      const standard = text.replace(/-/g, '+').replace(/_/g, '/');
      if (standard.replace(/=+$/, '').length % 4 === 1) return { ok: false, reason: 'the base64 secret has an impossible length' };
      return { ok: true, bytes: Buffer.from(standard, 'base64') };
    }
    case 'hex':
      if (!HEX.test(compact)) return { ok: false, reason: 'the secret is not an even number of hex digits' };
      return { ok: true, bytes: Buffer.from(compact, 'hex') };
  }
}

/** Unpadded upper-case base32 of the secret's bytes: what the core's TOTP import wants. */
export function toBase32Secret(secret: string, encoding: SecretEncoding = 'base32'): string {
  const decoded = decodeSecret(secret, encoding);
  if (!decoded.ok) throw new Error(decoded.reason);
  return base32.encode(decoded.bytes).replace(/=+$/, '');
}
