// The test vectors of docs/signin-protocol.md §5, computed with the package (auth-migrate-signin/protocol) and found
// verbatim on the page: the message bytes, the MAC and the placeholder of each vector. A change to the format that
// the page does not follow fails here.
import { readFileSync } from 'node:fs';
import { entryMac, entryMacValid, macMessage, placeholderPassword, signEntry } from 'auth-migrate-signin/protocol';
import { describe, expect, it } from 'vitest';

const PAGE = readFileSync(new URL('../../docs/signin-protocol.md', import.meta.url), 'utf8');
const SECRET = 'test-vector-secret-0123456789abcdef';
const VECTORS = [
  {
    sourceId: 'u-42',
    email: 'Ada@Example.com',
    algorithm: 'pbkdf2-sha256',
    hash: 'aGFzaA==',
    salt: 'c2FsdA==',
    params: { iterations: 27500, digest: 'sha256' },
    since: 1764288000000,
  },
  {
    sourceId: '7',
    email: 'bob@example.com',
    algorithm: 'md5',
    hash: '88a434c88cca4e900f7874cd98123f43',
    since: 1764288000000,
    disabledRole: 'blocked',
  },
];

describe('docs/signin-protocol.md test vectors', () => {
  it('the page names the secret the vectors use', () => {
    expect(PAGE).toContain(`\`${SECRET}\``);
  });
  it.each(VECTORS.map((v, i) => [i + 1, v] as const))('vector %i: message, MAC and placeholder are on the page', (_n, v) => {
    expect(PAGE).toContain(macMessage(v).toString('hex'));
    const mac = entryMac(SECRET, v);
    expect(PAGE).toContain(`MAC: \`${mac}\``);
    expect(PAGE).toContain(`Placeholder of \`${v.sourceId}\`: \`${placeholderPassword(SECRET, v.sourceId)}\``);
    // The signed entry carries that MAC, and it holds for the login's email in any ASCII case.
    const entry = signEntry(SECRET, v);
    expect(entry.mac).toBe(mac);
    expect(entryMacValid(SECRET, entry, v.email.toUpperCase())).toBe(true);
  });
  it('the parameters are ordered by key, whatever order the object has', () => {
    const v = VECTORS[0]!;
    expect(entryMac(SECRET, { ...v, params: { digest: 'sha256', iterations: 27500 } })).toBe(entryMac(SECRET, v));
    expect(entryMac(SECRET, { ...v, params: { digest: 'sha256', iterations: '27500' } })).not.toBe(entryMac(SECRET, v));
  });
});
