import { describe, expect, it } from 'vitest';
import { decodeSecret, toBase32Secret } from '../../src/records/secrets.js';

// RFC 6238 appendix B seed: ASCII "12345678901234567890".
const SEED = Buffer.from('12345678901234567890', 'ascii');
const SEED_B32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP secret conversion', () => {
  it.each([
    ['base32', SEED_B32],
    ['base32 lower-case with spaces', 'gezd gnbv gy3t qojq gezd gnbv gy3t qojq'],
    ['base64', SEED.toString('base64')],
    ['hex', SEED.toString('hex')],
  ] as const)('decodes %s to the same bytes and re-encodes to base32', (name, secret) => {
    const encoding = name.split(' ')[0] as 'base32' | 'base64' | 'hex';
    const decoded = decodeSecret(secret, encoding);
    expect(decoded.ok && decoded.bytes.equals(SEED)).toBe(true);
    expect(toBase32Secret(secret, encoding)).toBe(SEED_B32);
  });

  it('re-encodes binary bytes, not their text (checked against Python base64.b32encode)', () => {
    const bytes = Buffer.from([0xff, 0x00, 0x80, 0x7f, 0xfe, 0x01, 0x02, 0x03, 0x04, 0x05]);
    expect(toBase32Secret(bytes.toString('base64'), 'base64')).toBe('74AIA776AEBAGBAF');
  });

  it('accepts web-safe base64', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0xfb, 0xff, 0xbf, 0, 1, 2, 3]);
    const websafe = bytes.toString('base64url');
    const decoded = decodeSecret(websafe, 'base64');
    expect(decoded.ok && decoded.bytes.equals(bytes)).toBe(true);
  });

  it.each([
    ['base32', 'GEZDGNBV1'],
    ['base32', ''],
    ['hex', 'abc'],
    ['hex', 'zz11'],
    ['base64', '***'],
  ] as const)('refuses %s secret %j', (encoding, secret) => {
    expect(decodeSecret(secret, encoding).ok).toBe(false);
  });
});
