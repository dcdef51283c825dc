// `validate --check-password` on hashes the core cannot take (issue 32): each is checked with the legacy checker
// the app's sign-in part uses, whatever --unusable-hashes says: a Keycloak pbkdf2 (sha1 and sha256), an md5 and a
// Django pbkdf2 user match with the right password and are wrong with another; no output holds a hash.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';

let dir: string;
const b64 = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text, encoding).toString('base64');
// PBKDF2-HMAC-SHA1 and -SHA256 of "password" with salt "salt", 4096 iterations (RFC 6070; RFC 7914 §11's table's form).
const KC_SHA1 = b64('4b007901b765489abead49d926f721d065a429c1', 'hex');
const KC_SHA256 = b64('c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a', 'hex');
const USERS = [
  {
    id: 'kc1',
    email: 'kc1@example.com',
    legacyPassword: { algorithm: 'pbkdf2', hash: KC_SHA1, salt: b64('salt'), params: { iterations: 4096 } },
  },
  {
    id: 'kc256',
    email: 'kc256@example.com',
    legacyPassword: { algorithm: 'pbkdf2-sha256', hash: KC_SHA256, salt: b64('salt'), params: { hashIterations: 4096 } },
  },
  { id: 'md5', email: 'md5@example.com', password: { hash: '5f4dcc3b5aa765d61d8327deb882cf99' } }, // md5("password")
  { id: 'dj', email: 'dj@example.com', password: { hash: 'pbkdf2_sha256$120000$seasalt$fsgWMpOXin7ZAmi4j+7XjKCZ4JCvxJTGiwwDrawRqSc=' } },
];
const RIGHT: Record<string, string> = { kc1: 'password', kc256: 'password', md5: 'password', dj: 'lètmein' };

async function validate(args: string[]): Promise<{ code: number; stdout: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await main(['validate', join(dir, 'users.ndjson'), '--json', ...args], {
    stdout,
    stderr: new PassThrough(),
    env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') },
  });
  return { code, stdout: out };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'validate-legacy-'));
  writeFileSync(join(dir, 'users.ndjson'), USERS.map((u) => JSON.stringify(u)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('validate --check-password on legacy hashes', () => {
  it.each([[[]], [['--unusable-hashes', 'migrate-at-sign-in']], [['--unusable-hashes', 'without-password']]])(
    'with %j: the right password matches, another is wrong, for every algorithm',
    async (policy) => {
      const checks = Object.entries(RIGHT).flatMap(([id, pw]) => ['--check-password', `${id}:${pw}`, '--check-password', `${id}:${pw}x`]);
      const { stdout } = await validate([...policy, ...checks]);
      const spot = (JSON.parse(stdout) as { spotChecks: Array<{ user: string; result: string; detail: string }> }).spotChecks;
      expect(spot.map((s) => `${s.user.split(':')[0]} ${s.result}`)).toEqual(
        Object.keys(RIGHT).flatMap((id) => [`${id} match`, `${id} wrong-password`]),
      );
      expect(spot[0]!.detail).toMatch(/matches the pbkdf2 legacy hash/);
      for (const h of [KC_SHA1, KC_SHA256, '5f4dcc3b5aa765d61d8327deb882cf99', 'fsgWMpOXin7ZAmi4j']) expect(stdout).not.toContain(h);
    },
  );
});
