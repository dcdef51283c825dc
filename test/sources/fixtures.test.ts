// The committed fixtures are exactly what the generators make, and every valid set reads cleanly with
// passwords that really verify and secrets that decode to the listed base32.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { writeFixtures, type FixtureSet } from '../../tools/generators/fixtures.js';
import { verifyPassword } from '../../src/hashes/verify.js';
import { toBase32Secret } from '../../src/records/secrets.js';
import { parseHashConfig } from '../../src/sources/index.js';
import { collect, fixture, FIXTURES, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let sets: FixtureSet[];
beforeAll(async () => {
  tmp = await tempDir();
  sets = await writeFixtures(tmp.dir);
});
afterAll(async () => {
  await tmp.cleanup();
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('fixtures', () => {
  it('are byte for byte what `npm run fixtures` writes', async () => {
    const generated = await listFiles(tmp.dir);
    expect(await listFiles(FIXTURES)).toEqual(generated);
    for (const name of generated) {
      expect(await readFile(join(FIXTURES, name)), name).toEqual(await readFile(join(tmp.dir, name)));
    }
  });

  it('cover what the canonical fixture promises', async () => {
    const { records } = await collect([fixture('canonical/users.json')]);
    const users = records.map((r) => r.record);
    const algorithms = new Set(users.map((u) => u.password?.algorithm ?? (u.password?.hash.startsWith('$argon2') ? 'argon2' : undefined)));
    expect(algorithms).toEqual(new Set(['bcrypt', 'argon2', 'external_scrypt', undefined]));
    expect(users.some((u) => u.thirdParty?.length && !u.password)).toBe(true);
    expect(users.some((u) => u.thirdParty?.length && u.password)).toBe(true);
    expect(users.some((u) => u.phoneNumber && !u.email)).toBe(true);
    const devices = users.flatMap((u) => u.totp ?? []);
    expect(new Set(devices.map((t) => t.encoding ?? 'base32'))).toEqual(new Set(['base32', 'base64', 'hex']));
    expect(devices.some((t) => t.deviceName) && devices.some((t) => !t.deviceName)).toBe(true);
    expect(users.some((u) => u.otpFactors?.email && !u.otpFactors.phoneNumber)).toBe(true);
    expect(users.some((u) => u.otpFactors?.phoneNumber && !u.otpFactors.email)).toBe(true);
    expect(users.some((u) => u.otpFactors?.phoneNumber && u.otpFactors.email)).toBe(true);
    expect(users.some((u) => u.externalUserId)).toBe(true);
  });

  it('list every set in sets.json and README.md', async () => {
    const listed = JSON.parse(await readFile(fixture('sets.json'), 'utf8')) as Array<{ name: string; files: string[] }>;
    expect(listed.map((s) => s.name)).toEqual(sets.map((s) => s.name));
    const readme = await readFile(fixture('README.md'), 'utf8');
    // Other suites read the key from the first `base64_signer_key <key>` in the README.
    expect(/base64_signer_key\s+(\S+)/.exec(readme)?.[1]).toBe(await signerKey());
    for (const set of sets) {
      expect(readme).toContain(`### ${set.name}`);
      for (const c of set.credentials) if (c.password) expect(readme).toContain(c.password);
    }
  });

  it('valid sets read without reader errors; every listed password verifies; every secret decodes to its base32', async () => {
    for (const set of sets) {
      const hashConfig = set.hashConfig ? parseHashConfig(await readFile(fixture(set.hashConfig), 'utf8')) : undefined;
      const { records, all } = await collect(set.files.map(fixture), { hashConfig });
      expect(
        all.filter((p) => p.severity === 'error'),
        set.name,
      ).toEqual([]);
      expect(all.length > 0, `${set.name} warnings`).toBe(Boolean(set.warnings));
      const byId = new Map(records.map((r) => [r.record.id, r.record]));
      expect([...byId.keys()].sort(), set.name).toEqual(set.credentials.map((c) => c.id).sort());
      for (const c of set.credentials) {
        const user = byId.get(c.id)!;
        if (c.password) {
          const outcome = await verifyPassword(user.password!.hash, c.password, {
            signerKey: hashConfig?.signerKey ?? (await signerKey()),
          });
          expect(outcome, `${set.name} ${c.id}`).toEqual({ result: 'match' });
          expect(await verifyPassword(user.password!.hash, c.password + 'x', { signerKey: await signerKey() })).toEqual({
            result: 'mismatch',
          });
        } else {
          expect(user.password).toBeUndefined();
        }
        expect((user.totp ?? []).map((t) => toBase32Secret(t.secret, t.encoding))).toEqual(c.totp.map((t) => t.base32));
      }
    }
  });
});

async function signerKey(): Promise<string> {
  return parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8')).signerKey!;
}

describe('messages about broken fixtures', () => {
  it('never contain a secret or a hash from the file', async () => {
    const { readdir: list } = await import('node:fs/promises');
    const hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
    for (const name of await list(fixture('broken'))) {
      const path = fixture(`broken/${name}`);
      const text = (await readFile(path)).toString('latin1');
      const secrets = text.match(/\$(?:2[abxy]|argon2\w*|f_scrypt)\$[^"\s]+|[A-Z2-7]{16,}|[0-9a-f]{20,}|[A-Za-z0-9+/]{20,}={0,2}/g) ?? [];
      const withUsers = /totp|otpauth/.test(name) ? [fixture('firebase/export.json'), path] : [path];
      const messages: string[] = [];
      try {
        const { all } = await collect(withUsers, { hashConfig });
        messages.push(...all.map((p) => p.message));
      } catch (err) {
        messages.push((err as Error).message);
      }
      for (const m of messages) for (const s of secrets) expect(m, `${name}: ${m}`).not.toContain(s.slice(0, 16));
    }
  });
});
